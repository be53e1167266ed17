import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('previous_secret_ciphertext', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // An org's endpoints: listed, and read by every event the org's changes queue (the fan-out).
  await db.schema.createIndex('webhook_endpoints_org').on('webhook_endpoints').columns(['org_id', 'id']).execute();
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();
  // GET /v1/events: an org's events, newest first, from a time on.
  await db.schema.createIndex('webhook_events_org_created').on('webhook_events').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // An endpoint's deliveries, newest first.
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['org_id', 'endpoint_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('response_snippet', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'attempted_at']).execute();
}
