import { type Kysely, sql } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Which write last wrote a row (the row id its write reserved): a redefinition re-checks the rows written since it began.
  await db.schema.alterTable('object_rows').addColumn('rev', 'bigint').execute();
  await sql`update object_rows set rev = id`.execute(db);
  await db.schema.createIndex('object_rows_rev_idx').on('object_rows').columns(['object_id', 'rev']).execute();
  // A redefinition's rewrite of existing rows, in slices: rows up to rewrite_after are done, up to rewrite_through to do.
  await db.schema.alterTable('object_definitions').addColumn('rewrite_after', 'bigint').execute();
  await db.schema.alterTable('object_definitions').addColumn('rewrite_through', 'bigint').execute();
  // JSON `{ key_field, slots }` of the definition before: which filters read columns still being rewritten.
  await db.schema.alterTable('object_definitions').addColumn('rewrite_from', 'text').execute();
}
