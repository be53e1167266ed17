import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An interchange taken in slices is held by its process while that process lives (gateway_instances), not until a time.
  await db.schema.alterTable('edi_messages').addColumn('lease_owner', 'text').execute();
  await db.schema.alterTable('edi_messages').dropColumn('lease_until').execute();
}
