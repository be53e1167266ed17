import { PreparedList, PreparedQuery } from '../../platform/db/prepared-query.js';
import type { SinceWindow } from '../../platform/core/pagination.js';
import type { Executor } from '../../platform/db/schema.js';
import { inSinceOrder } from '../../platform/db/since-order.js';
import type { OrderStatus } from './order-status.js';
import type { OrderLinesTable, OrdersTable } from './orders.tables.js';

export type OrderRow = OrdersTable;
export type OrderLineRow = OrderLinesTable;

// 8 columns a row: 500 rows stay far below both dialects' bound-parameter limits.
const LINE_CHUNK = 500;

const insertOrderRow = new PreparedQuery((db, row: OrderRow) =>
  db
    .insertInto('orders')
    .values(row)
    .onConflict((oc) => oc.columns(['org_id', 'po_number']).doNothing()),
);

/** false when the org already has an order with this PO number. */
export async function insertOrder(db: Executor, row: OrderRow): Promise<boolean> {
  return Number((await insertOrderRow.result(db, row)).numAffectedRows ?? 0) > 0;
}

// Up to 64 lines (an EDI PO's usual size) compiled once per count; a longer order is built per call.
const insertLineRows = new PreparedList((db, _v: object, rows: OrderLineRow[]) => db.insertInto('order_lines').values(rows), 64);

export async function insertLines(db: Executor, lines: OrderLineRow[]): Promise<void> {
  for (let i = 0; i < lines.length; i += LINE_CHUNK) {
    await insertLineRows.result(db, {}, lines.slice(i, i + LINE_CHUNK));
  }
}

/** By id first, then by PO number. */
export async function findOrder(db: Executor, orgId: string, idOrPoNumber: string): Promise<OrderRow | undefined> {
  const byId = await db.selectFrom('orders').selectAll().where('org_id', '=', orgId).where('id', '=', idOrPoNumber).executeTakeFirst();
  if (byId) return byId;
  return db.selectFrom('orders').selectAll().where('org_id', '=', orgId).where('po_number', '=', idOrPoNumber).executeTakeFirst();
}

export async function listOrders(
  db: Executor,
  orgId: string,
  opts: { status?: OrderStatus; before?: { createdAt: string; id: string }; since?: SinceWindow; limit: number },
): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll().where('org_id', '=', orgId);
  if (opts.status !== undefined) query = query.where('status', '=', opts.status);
  if (opts.since !== undefined) return inSinceOrder(query, opts.since, 'id').limit(opts.limit).execute();
  if (opts.before !== undefined) {
    const b = opts.before;
    // A row value, not `a < x or (a = x and id < y)`: both planners seek the index to it instead of walking down from the newest.
    query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(b.createdAt, b.id)));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
}

export async function findLines(db: Executor, orgId: string, orderIds: string[]): Promise<OrderLineRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('order_lines')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('order_id', 'in', orderIds)
    .orderBy('order_id')
    .orderBy('line_no')
    .execute();
}

/** Moves the order only if it is still in `from`: of two concurrent changes, one wins and the other sees no row. */
export async function updateStatus(
  db: Executor,
  orgId: string,
  id: string,
  change: { from: OrderStatus; to: OrderStatus; at: string; eventId: string },
): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ status: change.to, updated_at: change.at, last_event_id: change.eventId })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', '=', change.from)
    .returningAll()
    .executeTakeFirst();
}
