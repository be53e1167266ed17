import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // products_list with updated_since: the org's changes in time order (SKU breaks ties), sought to the cursor.
  await db.schema.createIndex('products_org_updated_idx').on('products').columns(['org_id', 'updated_at', 'sku_lower']).execute();
}
