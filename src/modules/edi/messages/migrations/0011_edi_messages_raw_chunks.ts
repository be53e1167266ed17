import { type Kysely, PostgresAdapter } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
  // A received body is kept in pieces: a whole 10 MB blob is copied several times over by the database on its way in.
  // Rows written before keep their bytes in edi_messages.raw and are read from there.
  await db.schema
    .createTable('edi_message_chunks')
    .addColumn('message_id', 'text', (c) => c.notNull().references('edi_messages.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('data', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_message_chunks_pk', ['message_id', 'seq'])
    .execute();
}
