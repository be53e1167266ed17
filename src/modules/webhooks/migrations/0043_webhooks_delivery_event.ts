import type { Kysely } from 'kysely';

// Outbox rows of webhook deliveries now name their event instead of carrying its body (the sender reads the body from
// webhook_events): retention keeps an event while one of its deliveries is pending, found through this index.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').columns(['event_id']).execute();
}
