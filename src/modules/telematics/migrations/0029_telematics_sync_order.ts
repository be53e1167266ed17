import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // telematics_connections_list with updated_since: the org's connections in time order, sought to the cursor.
  await db.schema.createIndex('telematics_connections_org_updated_idx').on('telematics_connections').columns(['org_id', 'updated_at', 'id']).execute();
}
