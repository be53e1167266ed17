import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  const add = (column: string, type: 'text' | 'integer', notNullDefault?: string | number) =>
    db.schema
      .alterTable('telematics_connections')
      .addColumn(column, type, (c) => (notNullDefault === undefined ? c : c.notNull().defaultTo(notNullDefault)))
      .execute();
  await add('next_poll_at', 'text');
  await add('lease_owner', 'text');
  await add('lease_until', 'text');
  await add('cursors', 'text');
  await add('breaker_state', 'text', 'closed');
  await add('consecutive_failures', 'integer', 0);
  await add('open_until', 'text');
  await add('cooldown_s', 'integer', 0);
  await add('last_run', 'text');
  await add('last_error', 'text');
  await add('last_hub_rejections', 'text');
  // Due connections in time order (the poller's claim).
  await db.schema.createIndex('telematics_connections_due').on('telematics_connections').columns(['next_poll_at']).execute();
}
