import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('telematics_syncs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('window_from', 'text', (c) => c.notNull())
    .addColumn('window_to', 'text', (c) => c.notNull())
    .addColumn('elements', 'text')
    .addColumn('slices_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('machines_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('machines_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('events_enqueued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A connection's syncs, newest first (GET .../syncs), and the worker's claim of unfinished ones.
  await db.schema.createIndex('telematics_syncs_connection').on('telematics_syncs').columns(['org_id', 'connection_id', 'id']).execute();
  await db.schema.createIndex('telematics_syncs_status').on('telematics_syncs').columns(['status', 'next_attempt_at']).execute();
  // The machines a sync reads, in the order its slices go: written once when it starts, so a resume reads the same list.
  await db.schema
    .createTable('telematics_sync_machines')
    .addColumn('sync_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('pin', 'text', (c) => c.notNull())
    .addColumn('equipment', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('telematics_sync_machines_pk', ['sync_id', 'position'])
    .execute();
}
