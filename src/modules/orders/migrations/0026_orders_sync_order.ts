import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // orders_list with updated_since (created_since has orders_org_created_idx): changes in time order, sought to the cursor.
  await db.schema.createIndex('orders_org_updated_idx').on('orders').columns(['org_id', 'updated_at', 'id']).execute();
}
