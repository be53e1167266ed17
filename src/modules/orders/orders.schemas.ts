import { z } from 'zod';
import { limitParam } from '../../platform/http/pagination.js';
import { toUnits } from '../../platform/money.js';
import { ORDER_STATUSES, TARGET_STATUSES } from './order-status.js';

export const ORDER_SOURCES = ['api', 'mcp', 'edi'] as const;
export const DELIVERY_STATUSES = ['queued', 'delivered', 'rejected'] as const;

/** A REST or MCP order carries at most this many lines; an EDI 850 may carry more. */
const MAX_API_LINES = 500;
const MAX_EDI_LINES = 10_000;
export const MAX_QUANTITY = 1_000_000;
export const MAX_UNIT_PRICE = 1_000_000;

// No control characters: PO numbers travel in URL paths and EDI segments.
const poNumber = z
  .string()
  .trim()
  .regex(/^[^\p{Cc}]{1,64}$/u, 'po_number must be 1-64 characters without control characters');

const lineInput = z.strictObject({
  sku: z.string().trim().min(1, 'sku is required').max(200),
  quantity: z.number().int('quantity must be a whole number').positive('quantity must be positive').max(MAX_QUANTITY),
  unit_price: z
    .number()
    .min(0, 'unit_price must be 0 or more')
    .max(MAX_UNIT_PRICE)
    .refine((v) => toUnits(v) !== undefined, 'unit_price has at most 4 decimals'),
});

function createOrderInputWith(maxLines: number) {
  return z.strictObject({
    po_number: poNumber,
    ship_to: z.string().trim().min(1, 'ship_to is required').max(1000),
    notes: z.string().max(4000).nullable().optional(),
    lines: z.array(lineInput).min(1, 'at least one line is required').max(maxLines, `at most ${maxLines} lines`),
  });
}

export const createOrderInput = createOrderInputWith(MAX_API_LINES);
export const ediOrderInput = createOrderInputWith(MAX_EDI_LINES);
export type CreateOrderInput = z.infer<typeof createOrderInput>;

/** Money on the wire is a JSON number: unit_price exact to 4 decimals, totals rounded to cents (docs/decisions.md). */
const orderLineSchema = z.object({
  line_no: z.number().int(),
  sku: z.string(),
  product_name: z.string(),
  quantity: z.number().int(),
  unit_price: z.number(),
  line_total: z.number(),
});

export const orderDataSchema = z.object({
  id: z.string(),
  po_number: z.string(),
  status: z.enum(ORDER_STATUSES),
  ship_to: z.string(),
  notes: z.string().nullable(),
  source: z.enum(ORDER_SOURCES),
  lines: z.array(orderLineSchema),
  totals: z.object({ line_count: z.number().int(), total_quantity: z.number().int(), subtotal: z.number() }),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OrderData = z.infer<typeof orderDataSchema>;

export const orderSchema = orderDataSchema
  .extend({
    delivery: z.object({ status: z.enum(DELIVERY_STATUSES), attempts: z.number().int(), last_error: z.string().nullable() }),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof orderSchema>;

export const listOrdersQuery = z.strictObject({
  status: z.enum(ORDER_STATUSES).optional(),
  limit: limitParam(50, 50),
  cursor: z.string().max(500).optional(),
});
export type ListOrdersQuery = z.infer<typeof listOrdersQuery>;

export const orderRefParams = z.strictObject({ idOrPoNumber: z.string().min(1).max(200) });

export const setStatusInput = z.strictObject({ status: z.enum(TARGET_STATUSES) });
export type SetStatusInput = z.infer<typeof setStatusInput>;
