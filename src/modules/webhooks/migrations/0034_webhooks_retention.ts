import type { Kysely } from 'kysely';

// Retention deletes by age across orgs: each table needs its time first in an index, or a purge scans the table.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_events_created').on('webhook_events').columns(['created_at']).execute();
  await db.schema.createIndex('webhook_deliveries_created').on('webhook_deliveries').columns(['created_at']).execute();
  await db.schema.createIndex('webhook_attempts_attempted').on('webhook_attempts').columns(['attempted_at']).execute();
}
