import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../core/clock.js';
import type { Db } from '../db/schema.js';
import { SlicePacer, type SlicePacing } from '../db/slice-pacer.js';
import { newId } from '../core/ids.js';
import { type Kek, deriveKek, seal, unseal } from './aead.js';
import { type EncryptedColumn, prefixOf, replaceValues, ROTATION_SLICE, valuesNotUnder } from './columns.js';
import { type SecretKeyRow, findCurrentKey, findKey, insertFirstKey, listKeys, rewrapKey, switchCurrentKey } from './secret-keys.repository.js';

/** Values one slice re-encrypts at least on SQLite, however slow the writes. */
const MIN_ROTATION_SLICE = 10;

export interface VaultSecrets {
  /** GATEWAY_SECRET (or the generated one, see resolveGatewaySecret). */
  secret: string;
  /** GATEWAY_SECRET_PREVIOUS: still unwraps the data keys made under it, until `rotate` rewraps them. */
  previous?: string | undefined;
}

interface VaultOptions {
  /** How long a process keeps encrypting under the key it read as current; `rotate` waits this long before re-encrypting. */
  currentKeyRefreshMs?: number;
  /** How `rotate` sizes its slices and waits between them (slice-pacer.ts); fixed slices with a yield when absent. */
  pacing?: SlicePacing;
}

/** One slice of a rotation, for progress and the bench: values moved so far, and how long its write took. */
export interface RotationSlice {
  column: string;
  moved: number;
  reencrypted: number;
  writeMs: number;
}

interface CurrentKey {
  id: string;
  key: Buffer;
  readAt: number;
}

/**
 * Encrypts secrets at rest (vendor credentials, OAuth tokens): envelope encryption, so keys rotate with no redeploy.
 *
 * - A key-encryption key (KEK) is derived from GATEWAY_SECRET; it only wraps data keys, which live in `secret_keys`.
 * - Values are AES-256-GCM under the current data key: `v1:<key id>:<iv b64url>:<ciphertext+tag b64url>`, with the
 *   record's id as AAD. Data keys are cached by id; an id not cached is read from the table, so a rotation made by
 *   another process decrypts here at once, and the current key is re-read every `currentKeyRefreshMs`.
 * - `rotate` makes a new current key, waits until every process encrypts under it, then re-encrypts every declared
 *   column in slices until no value is under another key. Every process keeps serving throughout: old keys still decrypt.
 *
 * Changing GATEWAY_SECRET itself: (1) start every process with GATEWAY_SECRET=<new> and GATEWAY_SECRET_PREVIOUS=<old>
 * (keys wrapped under either unwrap); (2) once no process runs with the old secret alone, run `secrets rotate`, which
 * also rewraps every data key under the new secret; (3) `secrets status` shows one KEK id on every key; (4) drop
 * GATEWAY_SECRET_PREVIOUS.
 */
export class SecretVault {
  private readonly kek: Kek;
  private readonly previousKek: Kek | undefined;
  private readonly refreshMs: number;
  private readonly pacing: SlicePacing;
  private readonly dataKeys = new Map<string, Buffer>();
  private current: CurrentKey | undefined;

  constructor(private readonly db: Db, private readonly clock: Clock, secrets: VaultSecrets, opts: VaultOptions = {}) {
    this.kek = deriveKek(secrets.secret);
    this.previousKek = secrets.previous === undefined ? undefined : deriveKek(secrets.previous);
    this.refreshMs = opts.currentKeyRefreshMs ?? 2000;
    this.pacing = opts.pacing ?? { targetMs: undefined };
  }

  async encrypt(plaintext: string, aad: string): Promise<string> {
    const { id, key } = await this.currentKey();
    return `${prefixOf(id)}${seal(key, Buffer.from(plaintext, 'utf8'), aad)}`;
  }

  /** The plaintext; throws, never returns garbage, for a value altered, under an unknown key, or of another record. */
  async decrypt(ciphertext: string, aad: string): Promise<string> {
    const match = /^v1:([^:]+):(.*)$/s.exec(ciphertext);
    if (!match?.[1] || match[2] === undefined) throw new Error('not a vault ciphertext (expected v1:<key id>:<iv>:<data>)');
    const keyId = match[1];
    const plaintext = unseal(await this.dataKey(keyId), match[2], aad);
    if (!plaintext) throw new Error(`a value under data key ${keyId} does not decrypt: it was altered, or belongs to another record`);
    return plaintext.toString('utf8');
  }

  async currentKeyId(): Promise<string> {
    return (await this.currentKey()).id;
  }

  /**
   * New current key, every data key rewrapped under GATEWAY_SECRET, every value of `columns` re-encrypted under the new key,
   * a slice at a time (each slice one statement, so one short transaction). A rotation cut short (the process killed) left
   * its key current and some values under older keys: the next run resumes it (`resumed`), making no other key, and moves
   * only what is left, so no value is re-encrypted twice.
   */
  async rotate(
    columns: readonly EncryptedColumn[],
    onSlice?: (slice: RotationSlice) => void,
  ): Promise<{ keyId: string; reencrypted: number; resumed: boolean }> {
    await this.rewrapAll();
    const resumed = await this.unfinished(columns);
    if (!resumed) {
      const fresh = this.newDataKey();
      await switchCurrentKey(this.db, fresh.row, this.clock.now().toISOString());
      this.dataKeys.set(fresh.row.id, fresh.key);
    }
    this.current = undefined;
    // Other processes switch to the new key within their refresh interval; values they write before are re-encrypted below.
    await sleep(this.refreshMs);
    const progress = { reencrypted: 0, onSlice };
    let moved: number;
    // Another pass after one that moved values: a process may have written under an old key into a column done before.
    do {
      moved = 0;
      for (const column of columns) moved += await this.reencryptColumn(column, progress);
    } while (moved > 0);
    return { keyId: await this.currentKeyId(), reencrypted: progress.reencrypted, resumed };
  }

  /** A rotation was cut short: some value is under another key than the current one, which a finished rotation leaves none of. */
  private async unfinished(columns: readonly EncryptedColumn[]): Promise<boolean> {
    const current = await findCurrentKey(this.db);
    if (!current) return false;
    for (const column of columns) if ((await valuesNotUnder(this.db, column, current.id, 1)).length > 0) return true;
    return false;
  }

  /** Moves a column's values to the current key until none is under another; returns how many it moved. */
  private async reencryptColumn(column: EncryptedColumn, progress: { reencrypted: number; onSlice?: ((slice: RotationSlice) => void) | undefined }): Promise<number> {
    let moved = 0;
    const pacer = new SlicePacer(this.pacing, ROTATION_SLICE, MIN_ROTATION_SLICE);
    for (;;) {
      const current = await this.currentKey();
      const rows = await valuesNotUnder(this.db, column, current.id, pacer.size);
      if (rows.length === 0) return moved;
      const next = [];
      for (const row of rows) {
        const aad = String(row.id);
        const plaintext = await this.decrypt(row.value, aad).catch((err: unknown) => {
          throw new Error(`${column.table}.${column.column} of ${aad}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        });
        next.push({ ...row, next: await this.encrypt(plaintext, aad) });
      }
      const started = performance.now();
      // A row another process changed meanwhile stays as it wrote it; if still under an old key, the next slice retries it.
      const replaced = await replaceValues(this.db, column, next);
      const writeMs = performance.now() - started;
      moved += replaced;
      progress.reencrypted += replaced;
      progress.onSlice?.({ column: `${column.table}.${column.column}`, moved: replaced, reencrypted: progress.reencrypted, writeMs });
      // Between slices, the process's other work (requests, when a serve process rotates) and other processes' writes take their turn.
      await pacer.next(writeMs);
    }
  }

  private async rewrapAll(): Promise<void> {
    for (const row of await listKeys(this.db)) {
      if (row.kek_id === this.kek.id) continue;
      const key = this.unwrap(row);
      await rewrapKey(this.db, row.id, row.kek_id, { wrapped_key: seal(this.kek.key, key, row.id), kek_id: this.kek.id });
    }
  }

  private async currentKey(): Promise<CurrentKey> {
    // Monotonic time, not the injected clock: this is how long a process may lag a rotation, which waits in real time.
    const now = performance.now();
    if (this.current && now - this.current.readAt < this.refreshMs) return this.current;
    let row = await findCurrentKey(this.db);
    if (!row) {
      const first = this.newDataKey();
      await insertFirstKey(this.db, first.row);
      row = await findCurrentKey(this.db);
      if (!row) throw new Error('secret_keys has no current key after creating one');
    }
    this.current = { id: row.id, key: this.cache(row), readAt: now };
    return this.current;
  }

  private async dataKey(id: string): Promise<Buffer> {
    const cached = this.dataKeys.get(id);
    if (cached) return cached;
    const row = await findKey(this.db, id);
    if (!row) throw new Error(`unknown data key ${id}: it is not in secret_keys`);
    return this.cache(row);
  }

  private cache(row: SecretKeyRow): Buffer {
    const key = this.dataKeys.get(row.id) ?? this.unwrap(row);
    this.dataKeys.set(row.id, key);
    return key;
  }

  private unwrap(row: SecretKeyRow): Buffer {
    const kek = [this.kek, this.previousKek].find((k) => k?.id === row.kek_id);
    if (!kek) {
      throw new Error(
        `data key ${row.id} is wrapped under key-encryption key ${row.kek_id}, which neither GATEWAY_SECRET nor GATEWAY_SECRET_PREVIOUS derives (set GATEWAY_SECRET_PREVIOUS to the secret it was made under)`,
      );
    }
    const key = unseal(kek.key, row.wrapped_key, row.id);
    if (key?.length !== 32) throw new Error(`data key ${row.id} does not unwrap: its row in secret_keys was altered`);
    return key;
  }

  private newDataKey(): { row: Omit<SecretKeyRow, 'is_current' | 'retired_at'>; key: Buffer } {
    const key = randomBytes(32);
    const id = newId('sk', this.clock.now());
    return { key, row: { id, wrapped_key: seal(this.kek.key, key, id), kek_id: this.kek.id, created_at: this.clock.now().toISOString() } };
  }
}
