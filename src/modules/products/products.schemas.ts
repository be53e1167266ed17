import { z } from 'zod';
import { freeText, identifier } from '../../platform/core/text-rules.js';
import { limitParam, sinceParams } from '../../platform/core/pagination.js';
import { patchBody } from '../../platform/core/patch-body.js';
import { formatTireSize, parseTireSize } from './tire-size.js';

const PRODUCT_STATUSES = ['active', 'inactive', 'discontinued'] as const;
export const STOCK_STATUSES = ['backorder', 'low_stock', 'in_stock'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

// A SKU travels in URL paths and EDI segments: identifier rules (no whitespace, control or invisible characters).
const skuSchema = identifier(64, 'sku').describe('Stock keeping unit, 1-64 characters without spaces; unique per organisation, case-insensitively.');

const stockQty = z.number().int().min(-1_000_000_000).max(1_000_000_000);
const status = z.enum(PRODUCT_STATUSES);

export const productSchema = z
  .object({
    sku: z.string().describe('the SKU as first written'),
    name: z.string(),
    description: z.string().nullable(),
    status: status.describe('active products are listed and orderable'),
    stock_qty: z.number().int().describe('units in stock; zero or less means backorder'),
    stock_status: z.enum(STOCK_STATUSES).describe('derived from stock_qty with the organisation thresholds'),
    bin_location: z.string().nullable().describe('where the units are kept in the warehouse'),
    tire_size: z
      .string()
      .nullable()
      .describe('the tire size a size search finds it by, normalized (`225/45R17`, `LT245/75R16`, `33X12.50R15`): the one given, else the one in the name; null when neither has one'),
    created_at: z.string().describe('ISO 8601 UTC'),
    updated_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'Product', description: 'A catalog product with its stock level.' });

export type Product = z.infer<typeof productSchema>;

const fields = {
  name: freeText(200, { min: 1, trim: true, what: 'name' }).describe('Display name, 1-200 characters.'),
  description: freeText(4000, { what: 'description', multiline: true }).nullable().describe('Longer text, up to 4000 characters; null clears it.'),
  status: status.describe('active (default), inactive or discontinued; only active products can be ordered.'),
  stock_qty: stockQty.describe('Units in stock, a whole number; stock_status is derived from it.'),
  bin_location: freeText(64, { what: 'bin_location' }).nullable().describe('Warehouse bin, up to 64 characters; null clears it.'),
  tire_size: z
    .string()
    .max(40, { error: 'tire_size is at most 40 characters' })
    .transform((text, ctx) => {
      const size = parseTireSize(text);
      if (size) return formatTireSize(size);
      ctx.issues.push({ code: 'custom', input: text, message: 'tire_size is not a tire size: write it like 225/45R17, LT245/75R16 or 33x12.50R15' });
      return z.NEVER;
    })
    .nullable()
    .describe('The tire size, any usual spelling (`225/45R17`, `P225/45R17 94W`, `LT245/75R16`, `33x12.50R15`), stored normalized with its load index and speed rating when given; without it (or null) the size is read from the name.'),
};

export const createProductInput = z.strictObject({
  sku: skuSchema,
  name: fields.name,
  description: fields.description.optional(),
  status: fields.status.default('active'),
  stock_qty: fields.stock_qty.default(0),
  bin_location: fields.bin_location.optional(),
  tire_size: fields.tire_size.optional(),
});
export type CreateProductInput = z.infer<typeof createProductInput>;

export const updateProductInput = patchBody(
  z.strictObject({
    name: fields.name.optional(),
    description: fields.description.optional(),
    status: fields.status.optional(),
    stock_qty: fields.stock_qty.optional(),
    bin_location: fields.bin_location.optional(),
    tire_size: fields.tire_size.optional(),
  }),
);
export type UpdateProductInput = z.infer<typeof updateProductInput>;

export const listProductsQuery = z.strictObject({
  q: freeText(100, { trim: true, what: 'q' })
    .optional()
    .describe(
      'A tire size in any usual spelling (`225/45R17`, `225 45 17`, `22545R17`, `P225/45R17 94W`, `LT245/75R16`, `33x12.50R15`) finds the ' +
        'products of that size (P is the passenger size; LT and ST only their own); a load index and speed rating after it (`94W`) narrow to products ' +
        'stored with the same ones, and other words (`michelin 225/45R17`) to products whose SKU or name holds each; any other text is a case-insensitive ' +
        'substring of SKU or name.',
    ),
  status: z
    .enum(PRODUCT_STATUSES, { error: 'status must be active, inactive or discontinued' })
    .optional()
    .describe('Only products in this status; default active, or every status with updated_since (a sync must see products leave the catalog).'),
  ...sinceParams(false),
  limit: limitParam(200, 50).describe('Products per page, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListProductsQuery = z.infer<typeof listProductsQuery>;

export const skuParams = z.strictObject({
  sku: identifier(200, 'sku').describe('The SKU, matched case-insensitively (percent-encode a `/`).'),
});
