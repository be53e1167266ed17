import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('telematics_connect_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('provider', 'text')
    .addColumn('label', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  // Issued tokens of an org, newest first (what an operator looks at; expired ones can be swept by age).
  await db.schema.createIndex('telematics_connect_tokens_org').on('telematics_connect_tokens').columns(['org_id', 'created_at']).execute();
}
