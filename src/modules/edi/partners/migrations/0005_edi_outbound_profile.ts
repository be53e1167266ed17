import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // What a partner's guide asks of the documents we send (ship-from, remit-to, terms, required 856 segments), as JSON:
  // it grows with the guides, and nothing queries inside it.
  await db.schema.alterTable('edi_partners').addColumn('document_profile', 'text', (c) => c.notNull().defaultTo('{}')).execute();

  // The shipment an EDI order shipped with (carrier, numbers, packs), kept for the 856 and the 810's ship date.
  await db.schema
    .createTable('edi_shipments')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('shipped_at', 'text', (c) => c.notNull())
    .addColumn('shipment', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_shipments_pk', ['org_id', 'order_id'])
    .execute();
}
