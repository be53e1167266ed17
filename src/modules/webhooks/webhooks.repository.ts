import type { Dialect } from '../../platform/db/database.js';
import { PreparedList, PreparedQuery } from '../../platform/db/prepared-query.js';
import type { Db, Executor } from '../../platform/db/schema.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable, WebhookEventsTable } from './webhooks.tables.js';

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

// Read and written by every change that queues a hub event (an order): compiled once (per row count for the insert).
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

/** Newest first; `before` is the cursor (created_at, id) of the last row seen. */
export async function listEvents(
  db: Executor,
  orgId: string,
  opts: { type?: string; since: string; before?: { created_at: string; id: string }; limit: number },
): Promise<EventRow[]> {
  let query = db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).where('created_at', '>=', opts.since);
  if (opts.type !== undefined) query = query.where('type', '=', opts.type);
  const before = opts.before;
  if (before !== undefined) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)])]));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function findEvent(db: Executor, orgId: string, id: string): Promise<EventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function insertDeliveries(db: Executor, rows: readonly DeliveryRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_deliveries').values([...rows]).onConflict((oc) => oc.column('id').doNothing()).execute();
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

/** What the sender needs of its batch's deliveries: the event each carries (its webhook-id) and the endpoint. */
export async function deliveriesByIds(db: Executor, ids: readonly string[]): Promise<Pick<DeliveryRow, 'id' | 'endpoint_id' | 'event_id'>[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_deliveries').select(['id', 'endpoint_id', 'event_id']).where('id', 'in', [...ids]).execute();
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
const TIME_OF = { webhook_events: 'created_at', webhook_deliveries: 'created_at', webhook_attempts: 'attempted_at' } as const;

/** Deletes up to `limit` rows of `table` from before `before`, in one statement; answers how many (retention). */
export async function purgeBefore(db: Db, dialect: Dialect, table: Kept, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom(table)
    .where('id', 'in', () => {
      const old = db.selectFrom(table).select('id').where(TIME_OF[table], '<', before).limit(limit);
      return dialect === 'postgres' ? old.forUpdate().skipLocked() : old;
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
