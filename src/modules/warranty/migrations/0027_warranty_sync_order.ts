import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // warranty_claims_list with updated_since or created_since: the org's claims in time order, sought to the cursor.
  await db.schema.createIndex('warranty_claims_org_updated_idx').on('warranty_claims').columns(['org_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('warranty_claims_org_created_idx').on('warranty_claims').columns(['org_id', 'created_at', 'id']).execute();
}
