import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The operator's Idempotency-Keys: its calls act for no org, and idempotency_keys.org_id references orgs. The same
  // columns as idempotency_keys (org_id always ''), so one repository serves both.
  await db.schema
    .createTable('operator_idempotency_keys')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('response_body', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('operator_idempotency_keys_pk', ['org_id', 'key'])
    .execute();
  await db.schema.createIndex('operator_idempotency_keys_expires_idx').on('operator_idempotency_keys').column('expires_at').execute();
}
