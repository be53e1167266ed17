import { type ExpressionBuilder, sql } from 'kysely';
import { PreparedList, PreparedQuery } from '../../platform/db/prepared-query.js';
import type { SinceWindow } from '../../platform/core/pagination.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { inSinceOrder } from '../../platform/db/since-order.js';
import type { ProductStatus } from './products.schemas.js';
import type { ProductsTable } from './products.tables.js';
import type { StockStatus, StockThresholds } from './stock-status.js';

export type ProductRow = ProductsTable;

const productBySku = new PreparedQuery((db, v: { orgId: string; skuLower: string }) =>
  db.selectFrom('products').selectAll().where('org_id', '=', v.orgId).where('sku_lower', '=', v.skuLower),
);

export async function findProduct(db: Executor, orgId: string, sku: string): Promise<ProductRow | undefined> {
  return productBySku.takeFirst(db, { orgId, skuLower: sku.toLowerCase() });
}

// Up to 64 SKUs compiled once per count, as an order's lines are: an EDI slice's POs name ~40 distinct SKUs. More run in
// pieces of 64, which also keeps a PO of 90,000 lines under SQLite's (32,766) and PostgreSQL's (65,535) parameter bounds.
const productsBySkus = new PreparedList(
  (db, v: { orgId: string }, skusLower: string[]) => db.selectFrom('products').selectAll().where('org_id', '=', v.orgId).where('sku_lower', 'in', skusLower),
  64,
);

export async function findProducts(db: Executor, orgId: string, skusLower: string[]): Promise<ProductRow[]> {
  return productsBySkus.executeInPieces(db, { orgId }, skusLower);
}

/** What judging an order line needs of its product: the catalog's spelling of the SKU, the name the line keeps, the status. */
export type CatalogRow = Pick<ProductRow, 'sku' | 'sku_lower' | 'name' | 'status'>;

// Four columns, not sixteen: every order and every EDI PO reads its lines' products, and each column is a property made per row.
const catalogBySkus = new PreparedList(
  (db, v: { orgId: string }, skusLower: string[]) =>
    db.selectFrom('products').select(['sku', 'sku_lower', 'name', 'status']).where('org_id', '=', v.orgId).where('sku_lower', 'in', skusLower),
  64,
);

export async function findCatalogRows(db: Executor, orgId: string, skusLower: string[]): Promise<CatalogRow[]> {
  return catalogBySkus.executeInPieces(db, { orgId }, skusLower);
}

/** What `q` asks: a size (its load index and speed rating when given) with other words each contained, or a substring. */
export interface ProductSearch {
  q?: string;
  size?: { key: string; loadIndex?: string | undefined; speedRating?: string | undefined };
  words?: string[];
}

/** SKU or name contains `text` (case-insensitive, LIKE's wildcards taken literally). */
function containing(eb: ExpressionBuilder<Database, 'products'>, text: string) {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return eb.or([eb('sku_lower', 'like', sql<string>`${pattern} escape '\\'`), eb('name_lower', 'like', sql<string>`${pattern} escape '\\'`)]);
}

export async function listProducts(
  db: Executor,
  orgId: string,
  opts: ProductSearch & { status?: ProductStatus; afterSkuLower?: string; since?: SinceWindow; limit: number },
): Promise<ProductRow[]> {
  let query = db.selectFrom('products').selectAll().where('org_id', '=', orgId);
  if (opts.status !== undefined) query = query.where('status', '=', opts.status);
  const { size } = opts;
  if (size !== undefined) {
    query = query.where('size_key', '=', size.key);
    // Asked for, they must be stored and equal: a tire whose load or speed is not known is not shown as matching.
    if (size.loadIndex !== undefined) query = query.where('load_index', '=', size.loadIndex);
    if (size.speedRating !== undefined) query = query.where('speed_rating', '=', size.speedRating);
    for (const word of opts.words ?? []) query = query.where((eb) => containing(eb, word));
  } else if (opts.q) {
    const q = opts.q;
    query = query.where((eb) => containing(eb, q));
  }
  if (opts.since !== undefined) return inSinceOrder(query, opts.since, 'sku_lower').limit(opts.limit).execute();
  if (opts.afterSkuLower !== undefined) query = query.where('sku_lower', '>', opts.afterSkuLower);
  return query.orderBy('sku_lower').limit(opts.limit).execute();
}

export async function insertProduct(db: Executor, row: ProductRow): Promise<boolean> {
  const result = await db
    .insertInto('products')
    .values(row)
    .onConflict((oc) => oc.columns(['org_id', 'sku_lower']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function updateProduct(
  db: Executor,
  orgId: string,
  skuLower: string,
  patch: Partial<Omit<ProductRow, 'org_id' | 'sku' | 'sku_lower' | 'created_at'>>,
): Promise<ProductRow | undefined> {
  return db
    .updateTable('products')
    .set(patch)
    .where('org_id', '=', orgId)
    .where('sku_lower', '=', skuLower)
    .returningAll()
    .executeTakeFirst();
}

/** Re-derives every product's stock_status after the org's thresholds change. */
export async function recomputeStockStatuses(db: Executor, orgId: string, t: StockThresholds): Promise<void> {
  await db
    .updateTable('products')
    .set({
      stock_status: sql<StockStatus>`case when stock_qty <= ${t.backorder} then 'backorder' when stock_qty <= ${t.low} then 'low_stock' else 'in_stock' end`,
    })
    .where('org_id', '=', orgId)
    .execute();
}
