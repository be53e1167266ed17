import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { createGateway } from '../../../src/gateway.js';
import { type DatabaseHandle, openDatabase } from '../../../src/platform/db/database.js';
import type { Db } from '../../../src/platform/db/schema.js';
import { deriveKek } from '../../../src/platform/secrets/aead.js';
import { secretsStatus } from '../../../src/platform/secrets/status.js';
import type { EncryptedColumn } from '../../../src/platform/secrets/columns.js';
import { SecretVault, type VaultSecrets } from '../../../src/platform/secrets/vault.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const SCRATCH: EncryptedColumn = { table: 'vault_scratch', idColumn: 'id', column: 'secret' };
const FORMAT = /^v1:sk_[0-9a-z]{26}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/;
const newSecret = (): string => randomBytes(32).toString('base64url');

describe.each(dialects)('secret vault (%s)', (dialect) => {
  let h: Harness;
  let db: Db;
  let secret: string;
  const others: DatabaseHandle[] = [];

  /** A vault of another process: its own connection to the same database. */
  function otherProcess(secrets: VaultSecrets, refreshMs = 1000): SecretVault {
    const handle = openDatabase(h.databaseUrl, h.databaseSchema ? { schema: h.databaseSchema } : {});
    others.push(handle);
    return new SecretVault(handle.db, h.clock, secrets, { currentKeyRefreshMs: refreshMs });
  }

  async function insert(vault: SecretVault, id: string, plaintext: string): Promise<void> {
    await sql`insert into vault_scratch (id, secret) values (${id}, ${await vault.encrypt(plaintext, id)})`.execute(db);
  }

  async function stored(): Promise<{ id: string; secret: string }[]> {
    return (await sql<{ id: string; secret: string }>`select id, secret from vault_scratch order by id`.execute(db)).rows;
  }

  beforeEach(async () => {
    h = await startHarness(dialect);
    db = h.gateway.database.db;
    secret = h.config.GATEWAY_SECRET ?? '';
    await sql`create table vault_scratch (id text primary key, secret text)`.execute(db);
  });
  afterEach(async () => {
    await Promise.all(others.splice(0).map((o) => o.close()));
    await h.close();
  });

  it('round-trips any text, in the v1 format, with a fresh IV each time and never the plaintext in it', async () => {
    const vault = h.gateway.vault;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ minLength: 1, maxLength: 40 }), async (plaintext, aad) => {
        const sealed = await vault.encrypt(plaintext, aad);
        expect(sealed).toMatch(FORMAT);
        expect(await vault.decrypt(sealed, aad)).toBe(plaintext);
      }),
      { numRuns: 100 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 8, maxLength: 100 }), async (plaintext) => {
        expect(await vault.encrypt(plaintext, 'rec_1')).not.toContain(plaintext);
      }),
      { numRuns: 100 },
    );
    const a = await vault.encrypt('hunter2-password', 'rec_1');
    expect(await vault.encrypt('hunter2-password', 'rec_1')).not.toBe(a);
    expect(a.split(':')[1]).toBe(await vault.currentKeyId());
  });

  it('refuses a value of another record, an altered one, one under an unknown key and one not from the vault', async () => {
    const vault = h.gateway.vault;
    const sealed = await vault.encrypt('client-secret-123', 'con_a');
    await expect(vault.decrypt(sealed, 'con_b')).rejects.toThrow(/does not decrypt: it was altered, or belongs to another record/);
    const parts = sealed.split(':');
    const body = parts[3] ?? '';
    const flip = (s: string, i: number): string => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const altered of [
      [parts[0], parts[1], flip(parts[2] ?? '', 3), body].join(':'),
      [parts[0], parts[1], parts[2], flip(body, 5)].join(':'),
      [parts[0], parts[1], parts[2], flip(body, body.length - 3)].join(':'),
      [parts[0], parts[1], parts[2], body.slice(0, -4)].join(':'),
      `${sealed}:x`,
    ]) {
      await expect(vault.decrypt(altered, 'con_a')).rejects.toThrow(/does not decrypt/);
    }
    await expect(vault.decrypt(sealed.replace(/sk_\w+/, 'sk_00000000000000000000000000'), 'con_a')).rejects.toThrow('unknown data key sk_00000000000000000000000000');
    await expect(vault.decrypt('client-secret-123', 'con_a')).rejects.toThrow('not a vault ciphertext');
    expect(await vault.decrypt(sealed, 'con_a')).toBe('client-secret-123');
  });

  it('rotates: every value moves to the new key, including those another process wrote under the old key meanwhile', async () => {
    const vault = new SecretVault(db, h.clock, { secret }, { currentKeyRefreshMs: 1000 });
    for (let i = 0; i < 12; i++) await insert(vault, `row_${String(i).padStart(2, '0')}`, `secret ${i}`);
    const other = otherProcess({ secret });
    const oldKey = await other.currentKeyId();

    h.clock.advance(60_000);
    const rotation = vault.rotate([SCRATCH]);
    // The other process still holds the old key as current for up to its refresh interval.
    const late = await Promise.all([0, 1, 2].map(async (i) => {
      const id = `late_${i}`;
      const value = await other.encrypt(`late ${i}`, id);
      await sql`insert into vault_scratch (id, secret) values (${id}, ${value})`.execute(db);
      return value;
    }));
    expect(late.every((v) => v.startsWith(`v1:${oldKey}:`))).toBe(true);
    const { keyId, reencrypted } = await rotation;

    expect(keyId).not.toBe(oldKey);
    expect(reencrypted).toBe(15);
    const rows = await stored();
    expect(rows).toHaveLength(15);
    for (const row of rows) {
      expect(row.secret.startsWith(`v1:${keyId}:`)).toBe(true);
      expect(await vault.decrypt(row.secret, row.id)).toBe(row.id.startsWith('late') ? `late ${row.id.slice(5)}` : `secret ${Number(row.id.slice(4))}`);
    }
    // Without a restart, the other process decrypts under the new key and, once it re-read the current key, encrypts under it.
    expect(await other.decrypt(rows[0]?.secret ?? '', rows[0]?.id ?? '')).toBe('late 0');
    expect(await otherProcess({ secret }, 0).currentKeyId()).toBe(keyId);

    const status = await secretsStatus(db, [SCRATCH]);
    expect(status.current_key_id).toBe(keyId);
    expect(status.keys.map((k) => ({ id: k.id, current: k.current, values: k.values, retired: k.retired_at !== null }))).toEqual([
      { id: oldKey, current: false, values: 0, retired: true },
      { id: keyId, current: true, values: 15, retired: false },
    ]);
    expect(await vault.rotate([SCRATCH]).then((r) => r.reencrypted)).toBe(15);
  });

  it('re-encrypts in slices, and a rotation cut short is resumed under its own key: no second key, no value moved twice', async () => {
    const vault = new SecretVault(db, h.clock, { secret }, { currentKeyRefreshMs: 10 });
    const values = Array.from({ length: 1200 }, (_, i) => `row_${String(i).padStart(4, '0')}`);
    for (const id of values) await insert(vault, id, `secret ${id}`);
    const oldKey = await vault.currentKeyId();
    h.clock.advance(60_000);
    const slices: number[] = [];
    await expect(
      vault.rotate([SCRATCH], (slice) => {
        slices.push(slice.moved);
        if (slices.length === 1) throw new Error('killed after the first slice');
      }),
    ).rejects.toThrow('killed after the first slice');
    expect(slices).toEqual([200]);
    const cut = await secretsStatus(db, [SCRATCH]);
    const newKey = cut.current_key_id;
    expect(cut.keys.map((k) => [k.id, k.values])).toEqual([[oldKey, 1000], [newKey, 200]]);

    const resumed: number[] = [];
    const result = await new SecretVault(db, h.clock, { secret }, { currentKeyRefreshMs: 10 }).rotate([SCRATCH], (slice) => resumed.push(slice.moved));
    expect(result).toEqual({ keyId: newKey, reencrypted: 1000, resumed: true });
    expect(resumed).toEqual([200, 200, 200, 200, 200]);
    expect((await secretsStatus(db, [SCRATCH])).keys.map((k) => [k.id, k.values])).toEqual([[oldKey, 0], [newKey, 1200]]);
    for (const row of (await stored()).slice(0, 3)) expect(await vault.decrypt(row.secret, row.id)).toBe(`secret ${row.id}`);
    // Finished: the next rotation is a new one.
    expect((await vault.rotate([SCRATCH])).resumed).toBe(false);
  });

  it('never clobbers a row another process rewrote between its read and its write, and moves that write too', async () => {
    const other = otherProcess({ secret }, 10_000);
    const oldKey = await other.currentKeyId();
    /** Rotates like any vault, but another process rewrites row_a (under the old key) right after rotation read it. */
    class Interleaved extends SecretVault {
      private interleaved = false;
      override async decrypt(ciphertext: string, aad: string): Promise<string> {
        if (!this.interleaved) {
          this.interleaved = true;
          await sql`update vault_scratch set secret = ${await other.encrypt('second', 'row_a')} where id = ${'row_a'}`.execute(db);
        }
        return super.decrypt(ciphertext, aad);
      }
    }
    const vault = new Interleaved(db, h.clock, { secret }, { currentKeyRefreshMs: 10 });
    await insert(vault, 'row_a', 'first');
    const { keyId, reencrypted } = await vault.rotate([SCRATCH]);
    expect(reencrypted).toBe(1);
    const [row] = await stored();
    expect(row?.secret.startsWith(`v1:${keyId}:`)).toBe(true);
    expect(keyId).not.toBe(oldKey);
    expect(await vault.decrypt(row?.secret ?? '', 'row_a')).toBe('second');
  });

  it('changes GATEWAY_SECRET: the previous secret unwraps until rotate rewraps every data key under the new one', async () => {
    await insert(h.gateway.vault, 'row_1', 'under the first secret');
    const newer = newSecret();
    await expect(otherProcess({ secret: newer }).decrypt((await stored())[0]?.secret ?? '', 'row_1')).rejects.toThrow(
      /is wrapped under key-encryption key [0-9a-f]{16}, which neither GATEWAY_SECRET nor GATEWAY_SECRET_PREVIOUS derives/,
    );

    const changed = otherProcess({ secret: newer, previous: secret }, 10);
    expect(await changed.decrypt((await stored())[0]?.secret ?? '', 'row_1')).toBe('under the first secret');
    await insert(changed, 'row_2', 'written during the change');
    const { keyId, reencrypted } = await changed.rotate([SCRATCH]);
    expect(reencrypted).toBe(2);

    const kekIds = (await secretsStatus(db, [SCRATCH])).keys.map((k) => k.kek_id);
    expect(new Set(kekIds)).toEqual(new Set([deriveKek(newer).id]));
    const newOnly = otherProcess({ secret: newer });
    expect(await newOnly.currentKeyId()).toBe(keyId);
    for (const row of await stored()) expect(await newOnly.decrypt(row.secret, row.id)).toMatch(/first secret|during the change/);
  });

  it('refuses to start on a database whose keys no configured secret unwraps, in one line', async () => {
    const config = loadConfig({ DATABASE_URL: h.databaseUrl, GATEWAY_SECRET: newSecret(), LOG_LEVEL: 'silent' });
    await expect(createGateway(config, h.databaseSchema ? { databaseSchema: h.databaseSchema } : {})).rejects.toThrow(
      /^cannot use GATEWAY_SECRET: data key sk_\w+ is wrapped under key-encryption key/,
    );
  });
});
