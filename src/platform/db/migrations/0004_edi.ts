import { type Kysely, PostgresAdapter } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Raw interchanges are kept byte for byte (NUL and invalid UTF-8 included), which PostgreSQL text cannot hold.
  const bytes = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';

  await db.schema
    .createTable('edi_profiles')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id'))
    .addColumn('isa_qualifier', 'text', (c) => c.notNull())
    .addColumn('isa_id', 'text', (c) => c.notNull())
    .addColumn('last_control_number', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('edi_partners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('isa_qualifier', 'text', (c) => c.notNull())
    .addColumn('isa_id', 'text', (c) => c.notNull())
    .addColumn('gs_id', 'text')
    .addColumn('outbound_url', 'text')
    .addColumn('sku_qualifiers', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('edi_partners_isa_uq', ['org_id', 'isa_qualifier', 'isa_id'])
    .addUniqueConstraint('edi_partners_name_uq', ['org_id', 'name'])
    .execute();

  await db.schema
    .createTable('edi_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('partner_id', 'text')
    .addColumn('type', 'text')
    .addColumn('control_number', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('raw', bytes, (c) => c.notNull())
    .addColumn('errors', 'text')
    .addColumn('http_status', 'integer')
    .addColumn('result', 'text')
    .addColumn('related_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('edi_messages_org_created_idx').on('edi_messages').columns(['org_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('edi_documents')
    .addColumn('message_id', 'text', (c) => c.notNull().references('edi_messages.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('group_control', 'text', (c) => c.notNull())
    .addColumn('control_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('po_number', 'text')
    .addColumn('order_id', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_documents_pk', ['message_id', 'seq'])
    .execute();
  await db.schema.createIndex('edi_documents_order_idx').on('edi_documents').columns(['order_id']).execute();

  // One row per interchange a partner got an answer for: the key that makes a resend a replay, never a second order.
  await db.schema
    .createTable('edi_interchanges')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('control_number', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_interchanges_pk', ['org_id', 'partner_id', 'control_number'])
    .execute();
}
