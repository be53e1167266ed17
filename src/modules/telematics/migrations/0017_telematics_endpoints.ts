import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The fleet's id at the vendor, for providers whose configured paths name one (`/{fleet_id}/Fleet/{page}`).
  await db.schema.alterTable('telematics_connections').addColumn('fleet_id', 'text').execute();
  // The OAuth token the password or client-credentials grant gave, encrypted, reused by polls until shortly before it expires.
  await db.schema.alterTable('telematics_connections').addColumn('vendor_token_ciphertext', 'text').execute();
}
