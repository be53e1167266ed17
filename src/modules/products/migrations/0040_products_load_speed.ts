import type { Kysely } from 'kysely';
import { productSize } from '../tire-size.js';

/** Products read and rewritten per statement while the existing catalog's load and speed are filled in. */
const BATCH = 500;

interface Row {
  org_id: string;
  sku_lower: string;
  name: string;
  tire_size: string | null;
}

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(unknownDb: Kysely<unknown>): Promise<void> {
  const db = unknownDb as unknown as Kysely<{ products: Row & { size_key: string | null; load_index: string | null; speed_rating: string | null } }>;
  // The searched size's load index and speed rating: a size search that gives them narrows by them (no index of their
  // own: they filter the few rows of one size the size index already found).
  await db.schema.alterTable('products').addColumn('load_index', 'text').execute();
  await db.schema.alterTable('products').addColumn('speed_rating', 'text').execute();

  // The existing sized products, in key order, from what they were given or named (as productSize reads them today).
  let after: Row | undefined;
  for (;;) {
    let query = db.selectFrom('products').select(['org_id', 'sku_lower', 'name', 'tire_size']).where('size_key', 'is not', null);
    if (after) {
      const { org_id, sku_lower } = after;
      query = query.where((eb) => eb.or([eb('org_id', '>', org_id), eb.and([eb('org_id', '=', org_id), eb('sku_lower', '>', sku_lower)])]));
    }
    const rows = await query.orderBy('org_id').orderBy('sku_lower').limit(BATCH).execute();
    for (const row of rows) {
      const size = productSize(row.tire_size, row.name);
      if (size?.loadIndex || size?.speedRating) {
        await db.updateTable('products').set({ load_index: size.loadIndex, speed_rating: size.speedRating }).where('org_id', '=', row.org_id).where('sku_lower', '=', row.sku_lower).execute();
      }
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1];
  }
}
