// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.
import type { ProductStatus } from './products.schemas.js';
import type { StockStatus } from './stock-status.js';

export interface ProductsTable {
  org_id: string;
  sku: string;
  sku_lower: string;
  name: string;
  name_lower: string;
  description: string | null;
  status: ProductStatus;
  stock_qty: number;
  stock_status: StockStatus;
  bin_location: string | null;
  /** The size given explicitly (normalized), or null. */
  tire_size: string | null;
  /** The size searched by: tire_size, else the size read from the name; null when neither has one. */
  size_key: string | null;
  /** The searched size's single-tire load index (`94`; `120` of `120/116`), or null when not known. */
  load_index: string | null;
  /** The searched size's speed rating (`W`), or null when not known. */
  speed_rating: string | null;
  created_at: string;
  updated_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    products: ProductsTable;
  }
}
