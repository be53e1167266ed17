import { type Kysely, sql } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('destination', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  // Only undelivered rows are ever scanned by the worker, so the index stays small as history grows. `status`
  // rides along so queue depth and age are counted from the index alone, without reading the rows.
  await db.schema
    .createIndex('outbox_due_idx')
    .on('outbox')
    .columns(['destination', 'next_attempt_at', 'created_at', 'status'])
    .where(sql.ref('status'), 'in', [sql.lit('queued'), sql.lit('delivering')])
    .execute();
  // Operator views only: newest first, and the rejected few. Status columns stay out of full indexes, since every
  // delivery changes status twice and each indexed copy would be rewritten with it.
  await db.schema.createIndex('outbox_created_idx').on('outbox').column('created_at').execute();
  await db.schema
    .createIndex('outbox_rejected_idx')
    .on('outbox')
    .columns(['org_id', 'created_at'])
    .where(sql.ref('status'), '=', sql.lit('rejected'))
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('po_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('ship_to', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('line_count', 'integer', (c) => c.notNull())
    .addColumn('total_quantity', 'bigint', (c) => c.notNull())
    .addColumn('subtotal', 'bigint', (c) => c.notNull())
    .addColumn('last_event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('orders_org_po_unique', ['org_id', 'po_number'])
    .execute();
  await db.schema.createIndex('orders_org_created_idx').on('orders').columns(['org_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('orders_org_status_created_idx').on('orders').columns(['org_id', 'status', 'created_at', 'id']).execute();

  await db.schema
    .createTable('order_lines')
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('line_no', 'integer', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('sku', 'text', (c) => c.notNull())
    .addColumn('product_name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('unit_price', 'bigint', (c) => c.notNull())
    .addColumn('line_total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_lines_pk', ['order_id', 'line_no'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('response_body', 'text')
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['org_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_idx').on('idempotency_keys').column('expires_at').execute();
}
