import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An interchange taken in slices is held by its process while that process lives (gateway_instances), not until a time.
  await db.schema.alterTable('edi_messages').addColumn('lease_owner', 'text').execute();
  // lease_until stays (migrations only add): a previous build still running during a rolling upgrade reads it.
}
