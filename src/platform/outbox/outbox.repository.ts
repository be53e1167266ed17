import { PreparedList, PreparedQuery } from '../db/prepared-query.js';
import { sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { Db, Executor } from '../db/schema.js';
import { DUE_NOW, type OutboxStatus, type OutboxTable, pendingSql } from './outbox.tables.js';

type OutboxRow = OutboxTable;

/** What a sender needs of a claimed delivery. */
export interface ClaimedDelivery {
  id: string;
  org_id: string;
  destination: string;
  type: string;
  target: string | null;
  content_type: string;
  payload: string;
  attempts: number;
}

/**
 * The partial indexes' predicates, written as literals: SQLite uses a partial index only when the query repeats its
 * WHERE term word for word, and a bound parameter (`status in (?, ?)`) never does.
 */
const PENDING = pendingSql('status');
const REJECTED = sql<boolean>`status = 'rejected'`;

const CLAIMED_COLUMNS = ['id', 'org_id', 'destination', 'type', 'target', 'content_type', 'payload', 'attempts'] as const;

interface ClaimOptions {
  destination: string;
  owner: string;
  now: string;
  leaseUntil: string;
  limit: number;
}

/**
 * Leases up to `limit` due deliveries to `owner` in one statement: queued rows whose time has come and
 * rows whose previous lease ran out (its worker died). On PostgreSQL concurrent workers skip each other's
 * rows; SQLite runs one writer at a time, so the single UPDATE is the claim.
 */
/** The claim, built once per dialect (PostgreSQL's skips rows other workers hold); every idle worker polls it. */
function claimQuery(dialect: Dialect) {
  return new PreparedQuery((db, o: ClaimOptions) =>
    db
      .updateTable('outbox')
      .set({
        status: 'delivering',
        lease_owner: o.owner,
        lease_until: o.leaseUntil,
        // An expired lease makes the row due again without a second index.
        next_attempt_at: o.leaseUntil,
        attempts: sql<number>`attempts + 1`,
      })
      .where('id', 'in', () => {
        const due = db
          .selectFrom('outbox')
          .select('id')
          .where('destination', '=', o.destination)
          .where(PENDING)
          .where('next_attempt_at', '<=', o.now)
          .orderBy('next_attempt_at')
          .orderBy('created_at')
          .limit(o.limit);
        return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
      })
      .returning([...CLAIMED_COLUMNS, 'created_at']),
  );
}
const claims = { sqlite: claimQuery('sqlite'), postgres: claimQuery('postgres') } satisfies Record<Dialect, unknown>;

/** Whether a row of `destination` is due: the claim's own condition, read without taking a lock. */
const anyDue = new PreparedQuery((db, o: { destination: string; now: string }) =>
  db.selectFrom('outbox').select('id').where('destination', '=', o.destination).where(PENDING).where('next_attempt_at', '<=', o.now).limit(1),
);

export async function claimDue(db: Db, dialect: Dialect, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  // SQLite: an idle poll reads on the read connection instead of taking the single write lock for an UPDATE of nothing
  // (a row committed before this turn is seen, so none waits longer). PostgreSQL's claim of nothing locks nothing.
  if (dialect === 'sqlite' && (await anyDue.takeFirst(db, o)) === undefined) return [];
  const claimed = await claims[dialect].execute(db, o);
  // RETURNING keeps no order (PostgreSQL's follows the heap): the batch goes out in the order the events happened.
  return claimed.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1)).map(({ created_at: _at, ...delivery }) => delivery);
}

/**
 * Leases these queued deliveries (right after the change that wrote them commits); rows already leased are left alone,
 * and so are rows of destinations without a sender in this process (they wait, untouched, as without HUB_URL).
 */
export async function claimIds(db: Db, ids: string[], destinations: string[], owner: string, leaseUntil: string): Promise<ClaimedDelivery[]> {
  if (ids.length === 0 || destinations.length === 0) return [];
  return db
    .updateTable('outbox')
    .set({ status: 'delivering', lease_owner: owner, lease_until: leaseUntil, next_attempt_at: leaseUntil, attempts: sql<number>`attempts + 1` })
    .where('id', 'in', ids)
    .where('destination', 'in', destinations)
    .where('status', '=', 'queued')
    .returning(CLAIMED_COLUMNS)
    .execute();
}

/** The deliveries among `ids` that `owner` holds (written leased to it with their change): a read, no claim. */
const leasedByIds = new PreparedList((db, v: { owner: string }, ids: string[]) =>
  db.selectFrom('outbox').select(CLAIMED_COLUMNS).where('id', 'in', ids).where('lease_owner', '=', v.owner).where('status', '=', 'delivering'),
);

export async function findLeased(db: Executor, ids: string[], owner: string): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  return leasedByIds.executeInPieces(db, { owner }, ids);
}

/**
 * Outcome writes only touch rows this lease still owns: a worker whose lease ran out must not overwrite its successor.
 * They clear the owner with the lease: a row shows an owner only while someone holds it.
 */
const deliveredByIds = new PreparedList((db, v: { owner: string; at: string }, ids: string[]) =>
  db
    .updateTable('outbox')
    .set({ status: 'delivered', delivered_at: v.at, lease_owner: null, lease_until: null, last_error: null })
    .where('id', 'in', ids)
    .where('lease_owner', '=', v.owner)
    .where('status', '=', 'delivering'),
);

export async function markDelivered(db: Executor, ids: string[], owner: string, at: string): Promise<void> {
  if (ids.length === 0) return;
  await deliveredByIds.executeInPieces(db, { owner, at }, ids);
}

export async function markRejected(db: Executor, id: string, owner: string, reason: string): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ status: 'rejected', lease_owner: null, lease_until: null, last_error: reason })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'delivering')
    .execute();
}

export async function reschedule(db: Executor, ids: string[], owner: string, nextAttemptAt: string, reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('outbox')
    .set({ status: 'queued', next_attempt_at: nextAttemptAt, lease_owner: null, lease_until: null, last_error: reason })
    .where('id', 'in', ids)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'delivering')
    .execute();
}

/**
 * Makes the queued deliveries to one place (destination and target) that wait on backoff due now: it answers again, so
 * they go in the next passes instead of each at the end of its own delay. Answers how many it released.
 */
export async function releaseBackedOff(db: Executor, place: { destination: string; target: string | null }, now: string): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ next_attempt_at: now })
    .where('destination', '=', place.destination)
    .where(PENDING)
    .where('status', '=', 'queued')
    .where('next_attempt_at', '>', now)
    .where('target', place.target === null ? 'is' : '=', place.target)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Makes the queued deliveries to one place due no sooner than `until` (it asked to wait); later ones are left alone. */
export async function deferPlace(db: Executor, place: { destination: string; target: string }, until: string): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ next_attempt_at: until })
    .where('destination', '=', place.destination)
    .where(PENDING)
    .where('status', '=', 'queued')
    .where('next_attempt_at', '<', until)
    .where('target', '=', place.target)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * A stopping worker hands back what it still holds (owners `<workerId>:<n>`): due at once, so another process sends it
 * now rather than after the lease runs out. Answers how many rows it released.
 */
export async function releaseLeases(db: Executor, workerId: string, now: string): Promise<number> {
  const result = await db
    .updateTable('outbox')
    .set({ status: 'queued', next_attempt_at: now, lease_owner: null, lease_until: null })
    .where('status', '=', 'delivering')
    .where('lease_owner', 'like', `${workerId}:%`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Deletes up to `limit` deliveries delivered before `before`, in one statement; answers how many. Only `delivered`
 * rows: queued, in-flight and rejected ones are work or evidence. `created_at` bounds the scan to its index (a row is
 * delivered after it is created). On PostgreSQL concurrent purges skip each other's rows instead of waiting.
 */
export async function purgeDelivered(db: Db, dialect: Dialect, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('outbox')
    .where('id', 'in', () => {
      const old = db
        .selectFrom('outbox')
        .select('id')
        .where('created_at', '<', before)
        .where('status', '=', 'delivered')
        .where('delivered_at', '<', before)
        .limit(limit);
      return dialect === 'postgres' ? old.forUpdate().skipLocked() : old;
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface DeliveryState {
  id: string;
  status: OutboxStatus;
  attempts: number;
  last_error: string | null;
}

const statesByIds = new PreparedList((db, _v: object, ids: string[]) => db.selectFrom('outbox').select(['id', 'status', 'attempts', 'last_error']).where('id', 'in', ids));

export async function findStates(db: Executor, ids: string[]): Promise<DeliveryState[]> {
  if (ids.length === 0) return [];
  const rows = await statesByIds.executeInPieces(db, {}, ids);
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

export interface ListOptions {
  orgId?: string;
  status?: OutboxStatus;
  limit: number;
}

export async function listDeliveries(db: Executor, o: ListOptions): Promise<Omit<OutboxRow, 'payload'>[]> {
  let query = db
    .selectFrom('outbox')
    .select(['id', 'org_id', 'destination', 'target', 'type', 'content_type', 'status', 'attempts', 'next_attempt_at', 'lease_owner', 'lease_until', 'last_error', 'created_at', 'delivered_at']);
  if (o.orgId !== undefined) query = query.where('org_id', '=', o.orgId);
  if (o.status === 'rejected') query = query.where(REJECTED);
  else if (o.status !== undefined) query = query.where('status', '=', o.status);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(o.limit).execute();
}

/** The deliveries among `ids`, as listDeliveries shows them. */
export async function findViews(db: Executor, ids: readonly string[]): Promise<Omit<OutboxRow, 'payload'>[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('outbox')
    .select(['id', 'org_id', 'destination', 'target', 'type', 'content_type', 'status', 'attempts', 'next_attempt_at', 'lease_owner', 'lease_until', 'last_error', 'created_at', 'delivered_at'])
    .where('id', 'in', [...ids])
    .execute();
}

/** Makes rejected (or waiting) deliveries due again with a fresh backoff; delivered and in-flight ones are left alone. */
export async function requeue(db: Executor, where: { id?: string; orgId?: string; onlyRejected: boolean }): Promise<number> {
  let query = db.updateTable('outbox').set({ status: 'queued', attempts: 0, next_attempt_at: DUE_NOW, lease_owner: null, lease_until: null });
  query = where.onlyRejected ? query.where(REJECTED) : query.where('status', 'in', ['rejected', 'queued']);
  if (where.id !== undefined) query = query.where('id', '=', where.id);
  if (where.orgId !== undefined) query = query.where('org_id', '=', where.orgId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export interface QueueStats {
  destination: string;
  depth: number;
  oldest_created_at: string | null;
  rejected: number;
}

export async function queueStats(db: Executor): Promise<QueueStats[]> {
  const pending = await db
    .selectFrom('outbox')
    .select(['destination', (eb) => eb.fn.countAll<number>().as('depth'), (eb) => eb.fn.min('created_at').as('oldest')])
    .where(PENDING)
    .groupBy('destination')
    .execute();
  const rejected = await db
    .selectFrom('outbox')
    .select(['destination', (eb) => eb.fn.countAll<number>().as('rejected')])
    .where(REJECTED)
    .groupBy('destination')
    .execute();
  const byDestination = new Map<string, QueueStats>();
  for (const row of pending) {
    byDestination.set(row.destination, { destination: row.destination, depth: Number(row.depth), oldest_created_at: row.oldest, rejected: 0 });
  }
  for (const row of rejected) {
    const entry = byDestination.get(row.destination) ?? { destination: row.destination, depth: 0, oldest_created_at: null, rejected: 0 };
    entry.rejected = Number(row.rejected);
    byDestination.set(row.destination, entry);
  }
  return [...byDestination.values()];
}
