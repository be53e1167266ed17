import type { Clock } from '../../platform/core/clock.js';
import type { Executor, Tx } from '../../platform/db/schema.js';
import { AppError, notFound } from '../../platform/core/errors.js';
import { decodeCursor, page, sincePage, sinceWindowOf } from '../../platform/core/pagination.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import { z } from 'zod';
import type { CreateProductInput, ListProductsQuery, Product, UpdateProductInput } from './products.schemas.js';
import * as repo from './products.repository.js';
import { parseSizeQuery, productSize } from './tire-size.js';
import { deriveStockStatus, type StockSettings, stockSettings, thresholdsOf } from './stock-status.js';

/** A product as an order line is judged against: whether it may be ordered, and what the line keeps of it. */
export type CatalogEntry = Pick<Product, 'sku' | 'name' | 'status'>;

/** SKUs as the catalog keys them (lower case), each once. */
function distinctLowerCase(skus: string[]): string[] {
  return [...new Set(skus.map((s) => s.toLowerCase()))];
}

function toProduct(row: repo.ProductRow): Product {
  return {
    sku: row.sku,
    name: row.name,
    description: row.description,
    status: row.status,
    stock_qty: Number(row.stock_qty),
    stock_status: row.stock_status,
    bin_location: row.bin_location,
    tire_size: row.size_key,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const cursorSchema = z.object({ s: z.string() });

/** The searched size columns of a product: the size given, else the first one written in its name (productSize). */
function sizeColumns(tireSize: string | null, name: string): Pick<repo.ProductRow, 'size_key' | 'load_index' | 'speed_rating'> {
  const size = productSize(tireSize, name);
  return { size_key: size?.key ?? null, load_index: size?.loadIndex ?? null, speed_rating: size?.speedRating ?? null };
}

/** The list's filters for `q`: a size (with its load and speed when given) and any other words, or a substring. */
function searchOf(q: string | undefined): repo.ProductSearch {
  if (!q) return {};
  const sized = parseSizeQuery(q);
  if (!sized) return { q };
  const { key, loadIndex, speedRating } = sized.size;
  return { size: { key, loadIndex: loadIndex?.split('/')[0], speedRating }, words: sized.words };
}

/** The org-scoped product resource layer behind REST, MCP and the dealer portal. */
export class ProductsService {
  constructor(
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
  ) {}

  /** One page of the catalog: active products by SKU, or with updated_since every change in time order (decisions.md). */
  async list(db: Executor, orgId: string, query: ListProductsQuery): Promise<{ products: Product[]; next_cursor: string | null }> {
    // A query holding a tire size is looked up by size (indexed), its other words narrowing; any other is a substring search.
    const filters = { ...searchOf(query.q), limit: query.limit + 1 };
    const since = sinceWindowOf(query);
    if (since !== undefined) {
      const rows = await repo.listProducts(db, orgId, { ...filters, ...(query.status === undefined ? {} : { status: query.status }), since });
      const { items, next_cursor } = sincePage(rows, query.limit, since, (row) => ({ at: row[since.column], id: row.sku_lower }));
      return { products: items.map(toProduct), next_cursor };
    }
    const after = decodeCursor(query.cursor, cursorSchema);
    const rows = await repo.listProducts(db, orgId, { ...filters, status: query.status ?? 'active', ...(after ? { afterSkuLower: after.s } : {}) });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ s: row.sku_lower }));
    return { products: items.map(toProduct), next_cursor };
  }

  async get(db: Executor, orgId: string, sku: string): Promise<Product> {
    const row = await repo.findProduct(db, orgId, sku);
    if (!row) throw notFound(`product ${sku}`);
    return toProduct(row);
  }

  async create(tx: Tx, orgId: string, input: CreateProductInput): Promise<Product> {
    const thresholds = thresholdsOf(await this.orgs.settingsOf(stockSettings, orgId, tx));
    const at = this.clock.now().toISOString();
    const row: repo.ProductRow = {
      org_id: orgId,
      sku: input.sku,
      sku_lower: input.sku.toLowerCase(),
      name: input.name,
      name_lower: input.name.toLowerCase(),
      description: input.description ?? null,
      status: input.status,
      stock_qty: input.stock_qty,
      stock_status: deriveStockStatus(input.stock_qty, thresholds),
      bin_location: input.bin_location ?? null,
      tire_size: input.tire_size ?? null,
      ...sizeColumns(input.tire_size ?? null, input.name),
      created_at: at,
      updated_at: at,
    };
    if (!(await repo.insertProduct(tx, row))) throw new AppError('already_exists', `product ${input.sku} already exists`, undefined, undefined, 'sku');
    return toProduct(row);
  }

  async update(tx: Tx, orgId: string, sku: string, input: UpdateProductInput): Promise<Product> {
    const patch: Parameters<typeof repo.updateProduct>[3] = { updated_at: this.clock.now().toISOString() };
    if (input.name !== undefined) Object.assign(patch, { name: input.name, name_lower: input.name.toLowerCase() });
    if (input.description !== undefined) patch.description = input.description;
    if (input.status !== undefined) patch.status = input.status;
    if (input.bin_location !== undefined) patch.bin_location = input.bin_location;
    if (input.tire_size !== undefined || input.name !== undefined) {
      // The searched size follows the given size, else the name: either may change here, the other is stored.
      const stored = await repo.findProduct(tx, orgId, sku);
      if (!stored) throw notFound(`product ${sku}`);
      const tireSize = input.tire_size === undefined ? stored.tire_size : input.tire_size;
      Object.assign(patch, { tire_size: tireSize, ...sizeColumns(tireSize, input.name ?? stored.name) });
    }
    if (input.stock_qty !== undefined) {
      const thresholds = thresholdsOf(await this.orgs.settingsOf(stockSettings, orgId, tx));
      Object.assign(patch, { stock_qty: input.stock_qty, stock_status: deriveStockStatus(input.stock_qty, thresholds) });
    }
    const row = await repo.updateProduct(tx, orgId, sku.toLowerCase(), patch);
    if (!row) throw notFound(`product ${sku}`);
    return toProduct(row);
  }

  /** For other modules: the org's products for these SKUs (any status), keyed by lower-cased SKU. */
  async findBySkus(db: Executor, orgId: string, skus: string[]): Promise<Map<string, Product>> {
    const rows = await repo.findProducts(db, orgId, distinctLowerCase(skus));
    return new Map(rows.map((r) => [r.sku_lower, toProduct(r)]));
  }

  /** For judging order lines: the org's catalog entries (any status) for these SKUs, keyed by lower-cased SKU. */
  async catalogOf(db: Executor, orgId: string, skus: string[]): Promise<Map<string, CatalogEntry>> {
    // The rows are the entries as read: a row's extra sku_lower is its key, and nothing is copied per line.
    const rows = await repo.findCatalogRows(db, orgId, distinctLowerCase(skus));
    return new Map(rows.map((r) => [r.sku_lower, r]));
  }

  /** For other modules (inventory): sets stock levels inside the caller's transaction; returns SKUs not found. */
  async setStockLevels(tx: Tx, orgId: string, rows: { sku: string; qty: number }[]): Promise<string[]> {
    const thresholds = thresholdsOf(await this.orgs.settingsOf(stockSettings, orgId, tx));
    const at = this.clock.now().toISOString();
    const unknown: string[] = [];
    for (const { sku, qty } of rows) {
      const updated = await repo.updateProduct(tx, orgId, sku.toLowerCase(), {
        stock_qty: qty,
        stock_status: deriveStockStatus(qty, thresholds),
        updated_at: at,
      });
      if (!updated) unknown.push(sku);
    }
    return unknown;
  }

  /** Registered with OrgsService: keeps stored stock_status in step with the org's thresholds. */
  readonly onSettingsChanged = (tx: Tx, orgId: string, settings: StockSettings): Promise<void> =>
    repo.recomputeStockStatuses(tx, orgId, thresholdsOf(settings));
}
