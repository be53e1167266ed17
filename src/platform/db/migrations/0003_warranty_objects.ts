import { type Kysely, sql } from 'kysely';

// Frozen copies of the slot counts in modules/objects/field-slots.ts: a migration must not change with the code.
const TEXT_SLOTS = 8;
const NUMBER_SLOTS = 8;

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('warranty_claim_counters')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id'))
    .addColumn('last_number', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('warranty_claims')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('number', 'bigint', (c) => c.notNull())
    .addColumn('claim_number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('sku', 'text')
    .addColumn('dot_number', 'text')
    .addColumn('quantity', 'bigint')
    .addColumn('customer_ref', 'text')
    .addColumn('resolution', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('warranty_claims_number_uq', ['org_id', 'number'])
    .execute();
  await db.schema.createIndex('warranty_claims_status_idx').on('warranty_claims').columns(['org_id', 'status', 'number']).execute();

  await db.schema
    .createTable('warranty_claim_history')
    .addColumn('claim_id', 'text', (c) => c.notNull().references('warranty_claims.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('warranty_claim_history_pk', ['claim_id', 'seq'])
    .execute();

  await db.schema
    .createTable('object_definitions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('read_scope', 'text', (c) => c.notNull())
    .addColumn('write_scope', 'text')
    .addColumn('key_field', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('slots', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('last_row_id', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('object_definitions_key_uq', ['org_id', 'key'])
    .execute();

  let rows = db.schema
    .createTable('object_rows')
    .addColumn('object_id', 'text', (c) => c.notNull().references('object_definitions.id'))
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('key_value', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());
  for (let i = 1; i <= TEXT_SLOTS; i++) rows = rows.addColumn(`s${i}`, 'text');
  for (let i = 1; i <= NUMBER_SLOTS; i++) rows = rows.addColumn(`n${i}`, 'double precision');
  await rows.addPrimaryKeyConstraint('object_rows_pk', ['object_id', 'id']).execute();

  // NULLs are distinct on both dialects, so rows of objects without a key_field never collide.
  await db.schema.createIndex('object_rows_key_uq').on('object_rows').columns(['object_id', 'key_value']).unique().execute();
  // Partial: a slot no field uses costs nothing on insert; `slot = ?` implies `slot is not null`, so both planners use them.
  const slots = [
    ...Array.from({ length: TEXT_SLOTS }, (_, i) => `s${i + 1}`),
    ...Array.from({ length: NUMBER_SLOTS }, (_, i) => `n${i + 1}`),
  ];
  for (const slot of slots) {
    await db.schema
      .createIndex(`object_rows_${slot}_idx`)
      .on('object_rows')
      .columns(['object_id', slot, 'id'])
      .where(sql.ref(slot), 'is not', null)
      .execute();
  }
}
