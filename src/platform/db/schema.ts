import type { Generated, Kysely, Transaction } from 'kysely';

/**
 * Table types of the platform's own tables, shared by both dialects. Times are ISO 8601 UTC text (sortable on both
 * dialects), booleans are 0/1 integers, money is integer 1/10000 units, JSON is text. Columns with a closed set of
 * values are typed with their union, so rows need no cast.
 */
export interface OrgsTable {
  id: string;
  slug: string;
  name: string;
  created_at: string;
}

interface OrgSettingsTable {
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

/** A dealer site's browser-safe key: which origins may use it and its limits per minute (per key and per client IP). */
export interface PortalKeysTable {
  id: string;
  org_id: string;
  dealer: string;
  key_hash: string;
  display_prefix: string;
  /** Exact origins, space-separated. */
  allowed_origins: string;
  rate_limit_per_minute: number;
  ip_rate_limit_per_minute: number;
  created_at: string;
  revoked_at: string | null;
}

/** One operator action (an org created, a key or token issued, revoked or rotated): inserted, never updated or deleted. */
export interface AuditEventsTable {
  /** Insertion order, the trail's order (ids tie within a millisecond). */
  seq: Generated<number>;
  id: string;
  at: string;
  /** `admin:<8 hex of the admin token's SHA-256>`, `cli`, or `system` (in-process callers). */
  actor: string;
  action: string;
  /** The id of what was acted on (org, key, portal key; the connection or org for a connect token). */
  target: string;
  org_id: string | null;
  /** The HTTP request's id; null from the CLI. */
  request_id: string | null;
}

export interface IdempotencyKeysTable {
  org_id: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  /** The process holding an in-flight key (gateway_instances.id); null on records made before owners were recorded. */
  owner_id: string | null;
  /** Unused by this build; written for a previous one still running during a rolling upgrade (it waits until then). */
  locked_until: string;
  created_at: string;
  expires_at: string;
}

/**
 * Every table, by name. A module adds its own tables from its `<m>.tables.ts` by declaration merging
 * (`declare module '../../platform/db/schema.js' { interface Database { products: ProductsTable } }`), so this file
 * lists the platform's tables only.
 */
export interface Database {
  orgs: OrgsTable;
  org_settings: OrgSettingsTable;
  api_keys: ApiKeysTable;
  portal_keys: PortalKeysTable;
  audit_events: AuditEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  /** The operator door's keys (its calls act for no org: org_id is always ''). */
  operator_idempotency_keys: IdempotencyKeysTable;
}

export type Db = Kysely<Database>;
/**
 * Called inside a service's write transaction with what the write answers, so what its caller records of it (the
 * operation's idempotent outcome) commits with the change or not at all.
 */
export type BeforeCommit<T> = (tx: Transaction<Database>, answer: T) => Promise<void>;
export type Tx = Transaction<Database>;
/** A repository function runs on the pool or inside the caller's transaction. */
export type Executor = Db | Tx;
