import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('org_settings')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('org_settings_pk', ['org_id', 'key'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('name', 'text')
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('display_prefix', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('rotated_to', 'text')
    .execute();
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').columns(['org_id', 'created_at']).execute();

  await db.schema
    .createTable('products')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('sku_lower', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('stock_qty', 'bigint', (c) => c.notNull())
    .addColumn('stock_status', 'text', (c) => c.notNull())
    .addColumn('bin_location', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('products_pk', ['org_id', 'sku_lower'])
    .execute();
  await db.schema.createIndex('products_org_status_idx').on('products').columns(['org_id', 'status', 'sku_lower']).execute();
}
