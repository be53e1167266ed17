import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A body carrying several interchanges is kept whole, and each interchange as its own message pointing back to it.
  await db.schema.alterTable('edi_messages').addColumn('parent_id', 'text').execute();
}
