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

/** One delivery waiting for, or done with, its destination (the hub; later a partner URL). */
export interface OutboxTable {
  id: string;
  org_id: string;
  /** Who receives it: `hub` today; another kind (a partner endpoint) adds its own sender. */
  destination: string;
  /** Destination-specific address (a partner id or URL); null for the hub. */
  target: string | null;
  type: string;
  content_type: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface OrdersTable {
  id: string;
  org_id: string;
  po_number: string;
  status: string;
  ship_to: string;
  notes: string | null;
  source: string;
  line_count: number;
  total_quantity: number;
  subtotal: number;
  /** The outbox id of the order's latest hub event, for its delivery state. */
  last_event_id: string;
  created_at: string;
  updated_at: string;
}

export interface OrderLinesTable {
  order_id: string;
  line_no: number;
  org_id: string;
  sku: string;
  product_name: string;
  quantity: number;
  unit_price: number;
  line_total: number;
}

export interface IdempotencyKeysTable {
  org_id: string;
  key: string;
  fingerprint: string;
  state: string;
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  locked_until: string;
  created_at: string;
  expires_at: string;
}

export interface WarrantyClaimCountersTable {
  org_id: string;
  last_number: number;
}

export interface WarrantyClaimsTable {
  id: string;
  org_id: string;
  /** The per-org sequence behind claim_number (`WC-000042` has 42). */
  number: number;
  claim_number: string;
  status: string;
  description: string;
  sku: string | null;
  dot_number: string | null;
  quantity: number | null;
  customer_ref: string | null;
  resolution: string | null;
  source: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface WarrantyClaimHistoryTable {
  claim_id: string;
  seq: number;
  org_id: string;
  from_status: string | null;
  to_status: string;
  at: string;
  key_id: string;
}

export interface ObjectDefinitionsTable {
  id: string;
  org_id: string;
  key: string;
  label: string;
  read_scope: string;
  write_scope: string | null;
  key_field: string | null;
  /** JSON: the definition's fields as the operator wrote them. */
  fields: string;
  /** JSON: filterable field name -> object_rows slot column. */
  slots: string;
  version: number;
  last_row_id: number;
  created_at: string;
  updated_at: string;
}

/** A dynamic-object row: JSON data plus typed copies of its filterable fields in indexed slot columns. */
export interface ObjectRowsTable {
  object_id: string;
  id: number;
  org_id: string;
  key_value: string | null;
  data: string;
  created_at: string;
  updated_at: string;
  s1: string | null;
  s2: string | null;
  s3: string | null;
  s4: string | null;
  s5: string | null;
  s6: string | null;
  s7: string | null;
  s8: string | null;
  n1: number | null;
  n2: number | null;
  n3: number | null;
  n4: number | null;
  n5: number | null;
  n6: number | null;
  n7: number | null;
  n8: number | null;
}

/** An org's own EDI interchange id and its control-number counter (ISA13 and GS06 of everything it sends). */
export interface EdiProfilesTable {
  org_id: string;
  isa_qualifier: string;
  isa_id: string;
  last_control_number: number;
  created_at: string;
  updated_at: string;
}

export interface EdiPartnersTable {
  id: string;
  org_id: string;
  name: string;
  isa_qualifier: string;
  isa_id: string;
  gs_id: string | null;
  outbound_url: string | null;
  /** Comma-separated PO1 product id qualifiers, in the order they are tried for the SKU. */
  sku_qualifiers: string;
  created_at: string;
}

/** One interchange received or sent, raw bytes included. */
export interface EdiMessagesTable {
  id: string;
  org_id: string;
  direction: string;
  partner_id: string | null;
  /** Transaction set ids it carries, comma-separated when mixed; null when unreadable. */
  type: string | null;
  /** ISA13 */
  control_number: string | null;
  status: string;
  size: number;
  sha256: string;
  raw: Buffer;
  /** JSON: interchange-level findings. */
  errors: string | null;
  /** What POST /v1/edi answered (status and JSON body), replayed for a resend. */
  http_status: number | null;
  result: string | null;
  /** Outbound: the inbound message it answers; inbound duplicate or conflict: the original. */
  related_id: string | null;
  order_id: string | null;
  created_at: string;
  updated_at: string;
}

/** One transaction set of a message. */
export interface EdiDocumentsTable {
  message_id: string;
  seq: number;
  org_id: string;
  type: string;
  group_control: string;
  control_number: string;
  status: string;
  po_number: string | null;
  order_id: string | null;
  /** JSON: errors, and for an 850 what outbound documents echo (version, PO date, lines). */
  detail: string;
}

export interface EdiInterchangesTable {
  org_id: string;
  partner_id: string;
  control_number: string;
  sha256: string;
  message_id: string;
}

export interface Database {
  orgs: OrgsTable;
  org_settings: OrgSettingsTable;
  api_keys: ApiKeysTable;
  products: ProductsTable;
  outbox: OutboxTable;
  orders: OrdersTable;
  order_lines: OrderLinesTable;
  idempotency_keys: IdempotencyKeysTable;
  warranty_claim_counters: WarrantyClaimCountersTable;
  warranty_claims: WarrantyClaimsTable;
  warranty_claim_history: WarrantyClaimHistoryTable;
  object_definitions: ObjectDefinitionsTable;
  object_rows: ObjectRowsTable;
  edi_profiles: EdiProfilesTable;
  edi_partners: EdiPartnersTable;
  edi_messages: EdiMessagesTable;
  edi_documents: EdiDocumentsTable;
  edi_interchanges: EdiInterchangesTable;
}

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** A repository function runs on the pool or inside the caller's transaction. */
export type Executor = Db | Tx;
