import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('telematics_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('label', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('credentials_ciphertext', 'text')
    .addColumn('credentials_hint', 'text')
    .addColumn('oauth_tokens_ciphertext', 'text')
    .addColumn('consent_state_hash', 'text', (c) => c.unique())
    .addColumn('consent_verifier_ciphertext', 'text')
    .addColumn('consent_expires_at', 'text')
    .addColumn('connect_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('poll_interval_s', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // An org's connections, newest first (the list's order and cursor).
  await db.schema.createIndex('telematics_connections_org').on('telematics_connections').columns(['org_id', 'id']).execute();
}
