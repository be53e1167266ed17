import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A token issued to reconnect an existing connection names it; null for a token that creates a new one.
  await db.schema.alterTable('telematics_connect_tokens').addColumn('connection_id', 'text').execute();
}
