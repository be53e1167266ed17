import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An interchange is taken in slices, each its own transaction: how many sets it holds, and until when the process
  // taking it holds it (a resend after a crash finishes it once the lease has run out).
  await db.schema.alterTable('edi_messages').addColumn('sets_total', 'integer').execute();
  await db.schema.alterTable('edi_messages').addColumn('lease_until', 'text').execute();
}
