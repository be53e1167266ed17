import { type Kysely, PostgresAdapter } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Insertion order is the trail's order: ids alone tie within a millisecond.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('audit_events')
    .addColumn('seq', postgres ? 'serial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.references('orgs.id'))
    .addColumn('request_id', 'text')
    .execute();
  await db.schema.createIndex('audit_events_org_idx').on('audit_events').columns(['org_id', 'seq']).execute();
}
