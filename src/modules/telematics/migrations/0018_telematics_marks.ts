import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One mark per machine and data element: a late reading of one machine is judged against its own mark only.
  await db.schema
    .createTable('telematics_marks')
    .addColumn('connection_id', 'text', (c) => c.notNull().references('telematics_connections.id'))
    .addColumn('equipment_id', 'text', (c) => c.notNull())
    .addColumn('element', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('mark', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('telematics_marks_pk', ['connection_id', 'equipment_id', 'element'])
    .execute();
  // What polls came across and could not use: `[{ kind, detail, count, first_seen, last_seen }]`.
  await db.schema.alterTable('telematics_connections').addColumn('issues', 'text').execute();
}
