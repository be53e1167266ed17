import { updatePaced } from '../core/paced-hash.js';
import { createHash, type Hash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { DatabaseHandle } from '../db/database.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../db/faults.js';
import type { PurgeTarget } from '../db/retention.js';
import type { Db, Executor } from '../db/schema.js';
import { AppError, invalidInput } from '../core/errors.js';
import { holdLost, type InstanceLiveness } from '../instances/instance-liveness.js';
import * as repo from './idempotency.repository.js';

const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
/** The `param` of errors about the key: its REST header name (the MCP door names its argument instead). */
export const IDEMPOTENCY_KEY_PARAM = 'Idempotency-Key';
const DAY_MS = 24 * 60 * 60 * 1000;

/** What a call answered, as stored for replay: the payload of a success, or the error's code, message and details. */
export type StoredOutcome =
  | { status: number; output: Record<string, unknown> }
  | { status: number; error: { code: AppError['code']; message: string; details?: unknown; headers?: Record<string, string>; param?: string } };

/** A call that owns an idempotency key until it has answered. */
export interface IdempotencyClaim {
  /** The caller's keys: its org's, or the operator's (orgId ''). */
  table: repo.IdempotencyTable;
  orgId: string;
  key: string;
  fingerprint: string;
}

/** Bytes of a Buffer turned into base64 at a time: a multiple of 3, so the pieces join into the whole's base64. */
const BASE64_SLICE = 3 * 21_846;

/** What is left to feed the hash: a value to write, or text between values (a comma, a key, a closing bracket). */
type Piece = { value: unknown } | { text: string };

/**
 * Feeds the hash the JSON of `value` with object keys sorted at every depth (so key order does not matter), piece by
 * piece: a 10 MB raw body becomes base64 64 KB at a time, never one 14 MB string. A stack of pieces, never recursion,
 * so no nesting can overflow the call stack (the invoker refuses deep input before this anyway).
 */
function hashCanonicalJson(hash: Hash, root: unknown): void {
  const pending: Piece[] = [{ value: root }];
  for (let piece = pending.pop(); piece !== undefined; piece = pending.pop()) {
    if ('text' in piece) {
      hash.update(piece.text);
      continue;
    }
    const value = piece.value;
    if (Buffer.isBuffer(value)) {
      hash.update('"');
      for (let at = 0; at < value.length; at += BASE64_SLICE) hash.update(value.subarray(at, at + BASE64_SLICE).toString('base64'));
      hash.update('"');
    } else if (value === null || typeof value !== 'object') {
      hash.update(JSON.stringify(value) ?? 'null');
    } else {
      const members: Piece[] = [];
      if (Array.isArray(value)) {
        value.forEach((item: unknown, i) => members.push(...(i > 0 ? [{ text: ',' }] : []), { value: item }));
      } else {
        const entries = Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        entries.forEach(([k, v], i) => members.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` }, { value: v }));
      }
      const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
      hash.update(open);
      // Pushed in reverse: the stack gives them back in order.
      pending.push({ text: close }, ...members.reverse());
    }
  }
}

export function fingerprintOf(operation: string, input: unknown): string {
  const hash = createHash('sha256').update(`${operation}\n`);
  hashCanonicalJson(hash, input);
  return hash.digest('hex');
}

/**
 * fingerprintOf a raw-body operation's input, the same digest, with the body hashed a slice at a time between yields:
 * the canonical JSON of { body, params, query } starts with the body, so it is hashed first, then the rest as usual.
 */
export async function fingerprintOfRaw(operation: string, input: { body: Buffer; params: unknown; query: unknown }): Promise<string> {
  const hash = createHash('sha256').update(`${operation}\n{"body":"`);
  await updatePaced(hash, input.body, BASE64_SLICE, (piece) => piece.toString('base64'));
  hash.update('"');
  for (const key of ['params', 'query'] as const) {
    if (input[key] === undefined) continue;
    hash.update(`,${JSON.stringify(key)}:`);
    hashCanonicalJson(hash, input[key]);
  }
  hash.update('}');
  return hash.digest('hex');
}

export function checkKeyFormat(key: unknown): string {
  if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
    throw invalidInput('Idempotency-Key must be 1-255 printable ASCII characters without spaces', undefined, IDEMPOTENCY_KEY_PARAM);
  }
  return key;
}

/**
 * The idempotency store both doors share (REST `Idempotency-Key`, MCP `idempotency_key`), per org and key: the first
 * call runs and its answer (below 500) is kept for 24 h; the same call again replays it; another call with the key -> 422 idempotency_key_reused;
 * while the first still runs -> 409. A 5xx frees the key. A call in progress holds its key as long as its process lives,
 * however long it runs; a key left in flight by a dead process is taken over once that process's heartbeat is older than
 * INSTANCE_TTL_MS (instance-liveness.ts).
 */
export class IdempotencyStore {
  /** Claims of failed calls not yet released (see release), by org and key. */
  private readonly leftovers = new Map<string, IdempotencyClaim>();
  /** Keys of the calls this process is running now, by org and key. */
  private readonly running = new Set<string>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** This process, as the owner its claims carry, and the judge of whether another claim's owner still lives. */
    private readonly instances: InstanceLiveness,
    private readonly ttlMs = DAY_MS,
  ) {}

  /**
   * Runs `call` once per key: a stored outcome is returned instead of running it again. `call` gets the claim to
   * record its outcome under inside its write transaction (record), so a crash after commit cannot lose it.
   * `replayOf` is what of the answer is kept for a replay (not a secret shown once).
   */
  async run(
    claim: IdempotencyClaim,
    call: (held: IdempotencyClaim) => Promise<StoredOutcome>,
    replayOf: (outcome: StoredOutcome) => StoredOutcome = (outcome) => outcome,
  ): Promise<{ outcome: StoredOutcome; replayed: boolean }> {
    const id = leftoverId(claim);
    let stored: StoredOutcome | undefined;
    try {
      stored = await this.acquire(claim);
    } catch (err) {
      // A database fault may have cut the answer of a claim that committed: free it later, unless a call here holds the key.
      if (!(err instanceof AppError) && !this.running.has(id)) this.releaseLater(claim);
      throw err;
    }
    if (stored !== undefined) return { outcome: stored, replayed: true };
    this.running.add(id);
    try {
      let outcome: StoredOutcome;
      try {
        outcome = await call(claim);
      } catch (err) {
        // The call's own error is the answer, whether or not the key could be freed now.
        await this.release(claim);
        throw err;
      }
      const owner = this.instances.id;
      if (outcome.status >= 500) await this.release(claim);
      else {
        const kept = replayOf(outcome);
        await repo.saveOutcome(this.db, claim.table, claim.orgId, claim.key, claim.fingerprint, owner, { statusCode: kept.status, body: JSON.stringify(kept) });
      }
      return { outcome, replayed: false };
    } finally {
      this.running.delete(id);
    }
  }

  /**
   * Frees a failed call's key. With the database unreachable (a failover) the release fails too, and this process lives
   * on, so its claim would refuse the client's retry (409) indefinitely: it is released again once the database answers.
   */
  private async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await repo.releaseKey(this.db, claim.table, claim.orgId, claim.key, claim.fingerprint, this.instances.id);
    } catch {
      this.releaseLater(claim);
    }
  }

  private releaseLater(claim: IdempotencyClaim): void {
    this.leftovers.set(leftoverId(claim), claim);
    this.sweepTimer ??= setInterval(() => void this.sweep(), LEFTOVER_RETRY_MS).unref();
  }

  /** Releases the claims left by failed releases; one sweep at a time, stopping at the first failure. */
  private sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      for (const [id, claim] of this.leftovers) {
        // Taken again by a call here since (after a sweep): that claim is live, not a leftover.
        if (!this.running.has(id)) await repo.releaseKey(this.db, claim.table, claim.orgId, claim.key, claim.fingerprint, this.instances.id);
        this.leftovers.delete(id);
      }
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
    })()
      .catch(() => undefined)
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  /**
   * Stores the outcome a call will replay, inside its write transaction (after the change, before commit). Throws, so
   * the change rolls back, when the key is no longer this process's: a process judged dead (its heartbeats stalled past
   * the TTL) must not commit a call whose retry is running elsewhere.
   */
  async record(tx: Executor, claim: IdempotencyClaim, outcome: StoredOutcome): Promise<void> {
    if (!(await repo.saveOutcome(tx, claim.table, claim.orgId, claim.key, claim.fingerprint, this.instances.id, { statusCode: outcome.status, body: JSON.stringify(outcome) }))) {
      throw holdLost(`Idempotency-Key ${claim.key}`);
    }
  }

  /** Takes the key (undefined), or returns the outcome stored under it; throws while another call holds it. */
  private async acquire(claim: IdempotencyClaim): Promise<StoredOutcome | undefined> {
    // A leftover of this key is released first: a sweep finishing later must not delete the claim made now.
    if (this.leftovers.has(leftoverId(claim))) await this.sweep();
    // Registered before the claim is written: another process must never see a claim whose owner it cannot find.
    await this.instances.start();
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const fresh: repo.IdempotencyRow = {
      org_id: claim.orgId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      state: 'in_flight',
      status_code: null,
      content_type: null,
      response_body: null,
      owner_id: this.instances.id,
      locked_until: new Date(now.getTime() + PREVIOUS_BUILD_LOCK_MS).toISOString(),
      created_at: nowIso,
      expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
    };
    if (await repo.insertKey(this.db, claim.table, fresh)) return undefined;
    const seen = await repo.findKey(this.db, claim.table, claim.orgId, claim.key);
    if (seen === undefined) {
      if (await repo.insertKey(this.db, claim.table, fresh)) return undefined;
      throw inFlight(claim.key);
    }
    const stale = seen.state === 'in_flight' ? !(await this.instances.isLive(seen.owner_id)) : seen.expires_at <= nowIso || !isOutcome(seen.response_body);
    if (stale) {
      if (await repo.takeOver(this.db, claim.table, seen, fresh)) return undefined;
      throw inFlight(claim.key);
    }
    if (seen.fingerprint !== claim.fingerprint) {
      throw new AppError('idempotency_key_reused', `Idempotency-Key ${claim.key} was already used with a different request`, undefined, undefined, IDEMPOTENCY_KEY_PARAM);
    }
    if (seen.state !== 'done' || seen.response_body === null) throw inFlight(claim.key);
    return JSON.parse(seen.response_body) as StoredOutcome;
  }
}

/** How often claims whose release failed are released again: about when a database fault passes (faults.ts). */
const LEFTOVER_RETRY_MS = DATABASE_RETRY_AFTER_SECONDS * 1000;

const leftoverId = (claim: IdempotencyClaim) => `${claim.table}\n${claim.orgId}\n${claim.key}`;

/** Records written before outcomes were stored per operation held raw HTTP bodies: those are not replayable. */
function isOutcome(body: string | null): boolean {
  return body === null || body.startsWith('{"status":');
}

/** The fixed lock of the build before owners (IDEMPOTENCY_LOCK_MS' default), honoured by it during a rolling upgrade. */
const PREVIOUS_BUILD_LOCK_MS = 60_000;

const inFlight = (key: string) => new AppError('idempotency_in_flight', `a request with Idempotency-Key ${key} is in progress`, undefined, undefined, IDEMPOTENCY_KEY_PARAM);

/** What retention removes of the idempotency store: records past their expiry, `keepMs` after (RETENTION_IDEMPOTENCY_MS). */
export function idempotencyRetention({ db, dialect }: DatabaseHandle, keepMs: number): PurgeTarget {
  const purge = async (before: string, limit: number): Promise<number> => {
    const orgs = await repo.purgeExpired(db, dialect, 'idempotency_keys', before, limit);
    // The operator's few records go in the batch's room left over.
    return orgs < limit ? orgs + (await repo.purgeExpired(db, dialect, 'operator_idempotency_keys', before, limit - orgs)) : orgs;
  };
  return { name: 'idempotency_expired', keepMs, purge };
}
