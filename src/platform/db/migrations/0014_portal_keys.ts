import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('portal_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('dealer', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    // Exact origins, space-separated (an origin never holds a space).
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer', (c) => c.notNull())
    .addColumn('ip_rate_limit_per_minute', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('portal_keys_org_idx').on('portal_keys').columns(['org_id', 'id']).execute();
}
