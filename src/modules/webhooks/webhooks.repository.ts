import type { Dialect } from '../../platform/db/database.js';
import { sql } from 'kysely';
import { PreparedList, PreparedQuery } from '../../platform/db/prepared-query.js';
import { pendingSql } from '../../platform/outbox/outbox.js';
import type { Db, Executor } from '../../platform/db/schema.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from './webhooks.tables.js';

/** Deliveries a webhook sender sends at once, in parallel: a batch takes one timeout at most and stays inside its lease. */
export const WEBHOOK_MAX_BATCH = 20;

export type EndpointRow = WebhookEndpointsTable;
export type EventRow = WebhookEventsTable;
export type DeliveryRow = WebhookDeliveriesTable;
export type AttemptRow = WebhookAttemptsTable;

export async function insertEndpoint(db: Executor, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export async function findEndpoint(db: Executor, orgId: string, id: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** Oldest first (ids are time-sortable); `afterId` is the cursor. */
export async function listEndpoints(db: Executor, orgId: string, opts: { afterId?: string; limit: number }): Promise<EndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('org_id', '=', orgId);
  if (opts.afterId !== undefined) query = query.where('id', '>', opts.afterId);
  return query.orderBy('id').limit(opts.limit).execute();
}

/** The per-org revision (OrgsService.revisionOf) that every change to an org's endpoints bumps, in its transaction. */
export const ENDPOINTS_REVISION = 'webhooks.endpoints';

// Read by a change that queues a hub event when its org's endpoints are not cached at its revision: compiled once.
const enabledOfOrg = new PreparedQuery((db, v: { orgId: string }) =>
  db.selectFrom('webhook_endpoints').select(['id', 'event_types']).where('org_id', '=', v.orgId).where('enabled', '=', 1),
);

export async function enabledEndpoints(db: Executor, orgId: string): Promise<Pick<EndpointRow, 'id' | 'event_types'>[]> {
  return enabledOfOrg.execute(db, { orgId });
}

export async function updateEndpoint(db: Executor, orgId: string, id: string, patch: Partial<Omit<EndpointRow, 'id' | 'org_id' | 'created_at'>>): Promise<EndpointRow | undefined> {
  return db.updateTable('webhook_endpoints').set(patch).where('org_id', '=', orgId).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteEndpoint(db: Executor, orgId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The endpoints of these ids, whatever their org (the sender checks each against its delivery's org). */
export async function endpointsByIds(db: Executor, ids: readonly string[]): Promise<EndpointRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', [...ids]).execute();
}

const insertEventRows = new PreparedList((db, _v: object, rows: EventRow[]) =>
  db
    .insertInto('webhook_events')
    .values(rows)
    .onConflict((oc) => oc.column('id').doNothing()),
);

export async function insertEvents(db: Executor, rows: readonly EventRow[]): Promise<void> {
  if (rows.length === 0) return;
  await insertEventRows.result(db, {}, [...rows]);
}

/**
 * An event whose fan-out is pending, as literal SQL: SQLite uses the partial index (webhook_events_fanout) only when a
 * query repeats its WHERE term word for word.
 */
const FANOUT_PENDING = sql<boolean>`fanout is not null`;

/** An event waiting for its fan-out: whom it was subscribed to when it happened (`fanout`, JSON). */
export type PendingFanOut = Pick<EventRow, 'id' | 'org_id' | 'type' | 'created_at'> & { fanout: string };

/** The oldest pending fan-outs, taken in the caller's transaction: on PostgreSQL locked, skipping rows another process holds. */
function pendingFanOutsQuery(dialect: Dialect) {
  return new PreparedQuery((db, v: { limit: number }) => {
    const pending = db.selectFrom('webhook_events').select(['id', 'org_id', 'type', 'created_at', 'fanout']).where(FANOUT_PENDING).orderBy('created_at').orderBy('id').limit(v.limit);
    return dialect === 'postgres' ? pending.forUpdate().skipLocked() : pending;
  });
}
const pendingFanOutsOf = { sqlite: pendingFanOutsQuery('sqlite'), postgres: pendingFanOutsQuery('postgres') } satisfies Record<Dialect, unknown>;

export async function takePendingFanOuts(tx: Executor, dialect: Dialect, limit: number): Promise<PendingFanOut[]> {
  return (await pendingFanOutsOf[dialect].execute(tx, { limit })) as PendingFanOut[];
}

const anyFanOut = new PreparedQuery((db, _v: object) => db.selectFrom('webhook_events').select('id').where(FANOUT_PENDING).limit(1));

/** Whether any fan-out is pending: the idle poll's read, which takes no lock (on SQLite, the read connection). */
export async function anyPendingFanOut(db: Executor): Promise<boolean> {
  return (await anyFanOut.takeFirst(db, {})) !== undefined;
}

/** Marks these events fanned out, in the transaction that queued their deliveries. */
export async function clearFanOuts(tx: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.updateTable('webhook_events').set({ fanout: null }).where('id', 'in', [...ids]).execute();
}

/** How many fan-outs are pending and since when (the oldest's created_at): the queue gauges on /metrics. */
export async function pendingFanOutStats(db: Executor): Promise<{ depth: number; oldest_created_at: string | null }> {
  const row = await db
    .selectFrom('webhook_events')
    .select([(eb) => eb.fn.countAll<number>().as('depth'), (eb) => eb.fn.min('created_at').as('oldest')])
    .where(FANOUT_PENDING)
    .executeTakeFirst();
  return { depth: Number(row?.depth ?? 0), oldest_created_at: row?.oldest ?? null };
}

/**
 * A `webhook.test` event is kept as an event row only for its delivery to read its body: it is about the endpoint, not
 * the org's data, so the events API does not show it.
 */
const TEST_EVENT = 'webhook.test';

/** Newest first; `before` is the cursor (created_at, id) of the last row seen. */
export async function listEvents(
  db: Executor,
  orgId: string,
  opts: { type?: string; since: string; before?: { created_at: string; id: string }; limit: number },
): Promise<EventRow[]> {
  let query = db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).where('created_at', '>=', opts.since).where('type', '<>', TEST_EVENT);
  if (opts.type !== undefined) query = query.where('type', '=', opts.type);
  const before = opts.before;
  if (before !== undefined) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function findEvent(db: Executor, orgId: string, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).where('id', '=', id).where('type', '<>', TEST_EVENT).executeTakeFirst();
}

const insertDeliveryRows = new PreparedList((db, _v: object, rows: DeliveryRow[]) =>
  db
    .insertInto('webhook_deliveries')
    .values(rows)
    .onConflict((oc) => oc.column('id').doNothing()),
);

/** Rows per insert: 6 columns each keeps a statement well under SQLite's 32,766 bound parameters (a fan-out batch's). */
const DELIVERY_CHUNK = 1000;

export async function insertDeliveries(db: Executor, rows: readonly DeliveryRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += DELIVERY_CHUNK) await insertDeliveryRows.result(db, {}, rows.slice(i, i + DELIVERY_CHUNK));
}

/** An endpoint's deliveries, newest first; `before` is the cursor (created_at, id). */
export async function listDeliveries(
  db: Executor,
  orgId: string,
  endpointId: string,
  opts: { before?: { created_at: string; id: string }; limit: number },
): Promise<DeliveryRow[]> {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('org_id', '=', orgId).where('endpoint_id', '=', endpointId);
  const before = opts.before;
  if (before !== undefined) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function findDelivery(db: Executor, orgId: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('org_id', '=', orgId).where('endpoint_id', '=', endpointId).where('id', '=', id).executeTakeFirst();
}

// The sender's read of its batch's bodies: one statement per batch, compiled once per count of distinct events.
const eventBodies = new PreparedList((db, _v: object, ids: string[]) => db.selectFrom('webhook_events').select(['id', 'org_id', 'body']).where('id', 'in', ids), WEBHOOK_MAX_BATCH);

/** The bodies of these events, whatever their org (the sender checks each against its delivery's org). */
export async function eventsByIds(db: Executor, ids: readonly string[]): Promise<Pick<EventRow, 'id' | 'org_id' | 'body'>[]> {
  if (ids.length === 0) return [];
  return eventBodies.execute(db, {}, [...ids]);
}

export async function insertAttempts(db: Executor, rows: readonly AttemptRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_attempts').values([...rows]).execute();
}

export async function attemptsOf(db: Executor, orgId: string, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('delivery_id', 'in', [...deliveryIds])
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();
}

type Kept = 'webhook_events' | 'webhook_deliveries' | 'webhook_attempts';

/** A delivery's outbox row is still to be sent (queued, or being sent). */
const PENDING = pendingSql('outbox.status');

/** The rows of `table` from before `before` that may go: an event and its delivery rows stay while a delivery is pending. */
function purgeable(db: Db, table: Kept, before: string) {
  if (table === 'webhook_attempts') return db.selectFrom('webhook_attempts').select('id').where('attempted_at', '<', before);
  if (table === 'webhook_deliveries') {
    return db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('created_at', '<', before)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('outbox').select(sql.lit(1).as('one')).whereRef('outbox.id', '=', 'webhook_deliveries.id').where(PENDING))));
  }
  // The sender reads the body from the event: it goes only once it is fanned out and none of its deliveries waits to be sent.
  return db
    .selectFrom('webhook_events')
    .select('id')
    .where('created_at', '<', before)
    .where('fanout', 'is', null)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhook_deliveries')
            .innerJoin('outbox', 'outbox.id', 'webhook_deliveries.id')
            .select(sql.lit(1).as('one'))
            .whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id')
            .where(PENDING),
        ),
      ),
    );
}

/** Deletes up to `limit` rows of `table` from before `before`, in one statement; answers how many (retention). */
export async function purgeBefore(db: Db, dialect: Dialect, table: Kept, before: string, limit: number): Promise<number> {
  // On PostgreSQL concurrent purges skip each other's rows instead of waiting.
  const bounded = <Q extends { limit(n: number): Q; forUpdate(): Q; skipLocked(): Q }>(q: Q): Q => (dialect === 'postgres' ? q.limit(limit).forUpdate().skipLocked() : q.limit(limit));
  const result = await db
    .deleteFrom(table)
    .where('id', 'in', () => bounded(purgeable(db, table, before)))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
