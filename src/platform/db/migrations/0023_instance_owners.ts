import { type Kysely, sql } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Each process heartbeats here; what it owns (an idempotency claim, an interchange taken in slices) holds while it beats.
  await db.schema
    .createTable('gateway_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_ms', sql`double precision`, (c) => c.notNull())
    .execute();
  // An in-flight Idempotency-Key is held by its owner process while it lives, no longer until a fixed time.
  await db.schema.alterTable('idempotency_keys').addColumn('owner_id', 'text').execute();
  // locked_until stays (migrations only add): a previous build still running during a rolling upgrade reads it.
}
