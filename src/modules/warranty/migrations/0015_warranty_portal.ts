import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Set on claims a customer files through a dealer portal: who filed it there, and how to reach them; null otherwise.
  await db.schema.alterTable('warranty_claims').addColumn('dealer', 'text').execute();
  await db.schema.alterTable('warranty_claims').addColumn('contact_email', 'text').execute();
}
