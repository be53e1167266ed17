import type { Kysely } from 'kysely';
import { findTireSize } from '../tire-size.js';

/** Products read and rewritten per statement while the sizes of the existing catalog are filled in. */
const BATCH = 500;

interface Row {
  org_id: string;
  sku_lower: string;
  name: string;
}

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(unknownDb: Kysely<unknown>): Promise<void> {
  const db = unknownDb as unknown as Kysely<{ products: Row & { tire_size: string | null; size_key: string | null } }>;
  // tire_size: the size the product was given explicitly; size_key: the one searched by (given, else read from the name).
  await db.schema.alterTable('products').addColumn('tire_size', 'text').execute();
  await db.schema.alterTable('products').addColumn('size_key', 'text').execute();
  // A size search: the org's products of one size in one status, by SKU, sought to the cursor like the plain list.
  await db.schema.createIndex('products_org_size_idx').on('products').columns(['org_id', 'size_key', 'status', 'sku_lower']).execute();

  // The existing catalog's sizes, from the names (the only place a size could be written so far), in key order.
  let after: Row | undefined;
  for (;;) {
    let query = db.selectFrom('products').select(['org_id', 'sku_lower', 'name']);
    if (after) {
      const { org_id, sku_lower } = after;
      query = query.where((eb) => eb.or([eb('org_id', '>', org_id), eb.and([eb('org_id', '=', org_id), eb('sku_lower', '>', sku_lower)])]));
    }
    const rows = await query.orderBy('org_id').orderBy('sku_lower').limit(BATCH).execute();
    for (const row of rows) {
      const size = findTireSize(row.name);
      if (size) await db.updateTable('products').set({ size_key: size.key }).where('org_id', '=', row.org_id).where('sku_lower', '=', row.sku_lower).execute();
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1];
  }
}
