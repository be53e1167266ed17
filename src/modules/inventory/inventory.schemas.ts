import { z } from 'zod';
import { identifier } from '../../platform/core/text-rules.js';

const MAX_INVENTORY_ROWS = 10_000;

/** Whole units: a product's stock_qty is an integer (docs/decisions.md). */
const qty = z
  .number('qty must be a finite number')
  .int('qty must be a whole number')
  .min(-1_000_000_000)
  .max(1_000_000_000)
  .describe('The stock level to set, a whole number of units (-1,000,000,000 to 1,000,000,000); zero or less means backorder.');

const inventoryRow = z.strictObject({
  sku: identifier(200, 'sku').describe('The SKU, matched case-insensitively against your catalog; an unknown SKU is still forwarded to the hub.'),
  qty,
});

export const inventoryUpdateInput = z.strictObject({
  rows: z
    .array(inventoryRow)
    .min(1, 'at least one row is required')
    .max(MAX_INVENTORY_ROWS, `at most ${MAX_INVENTORY_ROWS} rows`)
    .describe(`Stock levels as { sku, qty }, 1-${MAX_INVENTORY_ROWS.toLocaleString('en-US')} rows; a later row for the same SKU wins.`),
});
export type InventoryUpdateInput = z.infer<typeof inventoryUpdateInput>;

export const inventoryUpdateResult = z
  .object({
    queued: z.boolean().describe('true while the hub has not taken the update yet (HTTP 202); false when it took it during the request (200)'),
    delivery_id: z.string().describe('the hub event carrying the update (evt_...)'),
    delivery_status: z.enum(['queued', 'delivered', 'rejected']).describe('the hub delivery state when the call answered'),
    applied: z.number().int().describe('rows that matched a catalog product and set its stock'),
    unknown_skus: z.array(z.string()).describe('SKUs not in your catalog, as sent (still forwarded to the hub)'),
  })
  .meta({ id: 'InventoryUpdate', description: 'The outcome of a stock level update.' });
export type InventoryUpdateResult = z.infer<typeof inventoryUpdateResult>;
