// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.
import type { OrderStatus } from './order-status.js';
import type { ORDER_SOURCES } from './orders.schemas.js';

export interface OrdersTable {
  id: string;
  org_id: string;
  po_number: string;
  status: OrderStatus;
  ship_to: string;
  notes: string | null;
  source: (typeof ORDER_SOURCES)[number];
  /** ISO 4217; the lines' money is in it too. */
  currency: string;
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

declare module '../../platform/db/schema.js' {
  interface Database {
    orders: OrdersTable;
    order_lines: OrderLinesTable;
  }
}
