import type { Executor } from '../../../platform/db/schema.js';
import type { EdiShipmentsTable } from './messages.tables.js';

type ShipmentRow = EdiShipmentsTable;

/** One shipment per order: a second move to shipped cannot happen (shipped only moves on to delivered). */
export async function insertShipment(db: Executor, row: ShipmentRow): Promise<void> {
  await db.insertInto('edi_shipments').values(row).execute();
}

export async function findShipment(db: Executor, orgId: string, orderId: string): Promise<ShipmentRow | undefined> {
  return db.selectFrom('edi_shipments').selectAll().where('org_id', '=', orgId).where('order_id', '=', orderId).executeTakeFirst();
}
