import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // objects_query with updated_since: an object's rows in write order, sought to the cursor. Rows have always kept
  // created_at and updated_at (0003), so there is nothing to backfill; object ids are unique across orgs, as in the
  // module's other indexes, so the object leads.
  await db.schema.createIndex('object_rows_updated_idx').on('object_rows').columns(['object_id', 'updated_at', 'id']).execute();
}
