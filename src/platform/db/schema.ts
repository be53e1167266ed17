import type { Kysely, Transaction } from 'kysely';

/**
 * Table types, shared by both dialects. Times are ISO 8601 UTC text (sortable on both dialects),
 * booleans are 0/1 integers, money is integer 1/10000 units, JSON is text.
 */
export interface OrgsTable {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

export interface OrgSettingsTable {
  org_id: string;
  key: string;
  value: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string | null;
  key_hash: string;
  display_prefix: string;
  scopes: string;
  rate_limit_per_minute: number | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  rotated_to: string | null;
}

export interface ProductsTable {
  org_id: string;
  sku: string;
  sku_lower: string;
  name: string;
  name_lower: string;
  description: string | null;
  status: string;
  stock_qty: number;
  stock_status: string;
  bin_location: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  orgs: OrgsTable;
  org_settings: OrgSettingsTable;
  api_keys: ApiKeysTable;
  products: ProductsTable;
}

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** A repository function runs on the pool or inside the caller's transaction. */
export type Executor = Db | Tx;
