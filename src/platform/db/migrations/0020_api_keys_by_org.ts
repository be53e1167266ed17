import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The operator's key list pages an org's keys in id order: this index seeks to the cursor instead of sorting them all.
  await db.schema.createIndex('api_keys_org_id_idx').on('api_keys').columns(['org_id', 'id']).execute();
}
