import { z } from 'zod';
import { limitParam } from '../../platform/http/pagination.js';

export const PRODUCT_STATUSES = ['active', 'inactive', 'discontinued'] as const;
export const STOCK_STATUSES = ['backorder', 'low_stock', 'in_stock'] as const;

// No whitespace or control characters: a SKU travels in URL paths and EDI segments.
export const skuSchema = z
  .string()
  .regex(/^[^\s\p{Cc}]{1,64}$/u, 'sku must be 1-64 characters without spaces or control characters');

const stockQty = z.number().int().min(-1_000_000_000).max(1_000_000_000);
const text = (max: number) => z.string().max(max);

export const productSchema = z
  .object({
    sku: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(PRODUCT_STATUSES),
    stock_qty: z.number().int(),
    stock_status: z.enum(STOCK_STATUSES),
    bin_location: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Product' });

export type Product = z.infer<typeof productSchema>;

export const createProductInput = z.strictObject({
  sku: skuSchema,
  name: z.string().trim().min(1).max(200),
  description: text(4000).nullable().optional(),
  status: z.enum(PRODUCT_STATUSES).default('active'),
  stock_qty: stockQty.default(0),
  bin_location: text(64).nullable().optional(),
});
export type CreateProductInput = z.infer<typeof createProductInput>;

export const updateProductInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    description: text(4000).nullable().optional(),
    status: z.enum(PRODUCT_STATUSES).optional(),
    stock_qty: stockQty.optional(),
    bin_location: text(64).nullable().optional(),
    stock_status: z.never({ error: 'stock_status is derived from stock_qty and cannot be set' }).optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'send at least one of name, description, status, stock_qty, bin_location' });
export type UpdateProductInput = z.infer<typeof updateProductInput>;

export const listProductsQuery = z.strictObject({
  q: z.string().trim().max(100).optional(),
  limit: limitParam(200, 50),
  cursor: z.string().max(500).optional(),
});
export type ListProductsQuery = z.infer<typeof listProductsQuery>;

export const skuParams = z.strictObject({ sku: z.string().min(1).max(200) });
