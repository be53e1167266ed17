import { z } from 'zod';

const MAX_INVENTORY_ROWS = 10_000;

/** Whole units: a product's stock_qty is an integer (docs/decisions.md). */
const qty = z
  .number('qty must be a finite number')
  .int('qty must be a whole number')
  .min(-1_000_000_000)
  .max(1_000_000_000);

export const inventoryUpdateInput = z.strictObject({
  rows: z
    .array(z.strictObject({ sku: z.string().trim().min(1, 'sku must not be blank').max(200), qty }))
    .min(1, 'at least one row is required')
    .max(MAX_INVENTORY_ROWS, `at most ${MAX_INVENTORY_ROWS} rows`),
});
export type InventoryUpdateInput = z.infer<typeof inventoryUpdateInput>;

export const inventoryUpdateResult = z
  .object({
    /** true while the hub has not taken the update yet (HTTP 202); false when it took it during the request (200). */
    queued: z.boolean(),
    delivery_id: z.string(),
    delivery_status: z.enum(['queued', 'delivered', 'rejected']),
    applied: z.number().int(),
    unknown_skus: z.array(z.string()),
  })
  .meta({ id: 'InventoryUpdate' });
export type InventoryUpdateResult = z.infer<typeof inventoryUpdateResult>;
