import { z } from 'zod';
import { identifier } from '../../platform/core/text-rules.js';
import { STOCK_STATUSES } from '../products/products.schemas.js';
import { CLAIM_STATUSES } from '../warranty/claim-states.js';
import { claimFields } from '../warranty/warranty.schemas.js';

/** Most SKUs one availability call takes. */
const MAX_AVAILABILITY_SKUS = 100;

const availability = z
  .enum(STOCK_STATUSES)
  .describe('in_stock, low_stock or backorder, from the stock level and the organisation thresholds (never the quantity)');

/** A catalog product as a dealer's page may show it: no quantity, bin location or price. */
export const portalProductSchema = z
  .object({
    sku: z.string().describe('the SKU as the catalog spells it'),
    name: z.string(),
    description: z.string().nullable(),
    tire_size: z.string().nullable().describe('the tire size, normalized (`225/45R17`, `LT245/75R16`); null when the product has none'),
    availability,
  })
  .meta({ id: 'PortalProduct', description: 'A catalog product as a dealer site shows it: availability, never quantities, bins or prices.' });
export type PortalProduct = z.infer<typeof portalProductSchema>;

export const portalProductsOutput = z.object({
  products: z.array(portalProductSchema),
  next_cursor: z.string().nullable().describe('cursor of the next page; null on the last'),
});

const skuAvailabilitySchema = z.object({ sku: z.string().describe('the SKU as the catalog spells it'), availability });

export const availabilityQuery = z.strictObject({
  skus: z
    .string()
    .max(MAX_AVAILABILITY_SKUS * 65, { error: 'skus is too long' })
    .transform((text) => text.split(',').map((sku) => sku.trim()).filter(Boolean))
    .pipe(
      z
        .array(identifier(64, 'sku'))
        .min(1, { error: 'list at least one SKU' })
        .max(MAX_AVAILABILITY_SKUS, { error: `list at most ${MAX_AVAILABILITY_SKUS} SKUs` }),
    )
    .describe(`Comma-separated SKUs, 1-${MAX_AVAILABILITY_SKUS} of them (matched case-insensitively).`),
});

export const availabilityOutput = z.object({
  products: z.array(skuAvailabilitySchema).describe('the SKUs in the active catalog, in the order asked'),
  unknown: z.array(z.string()).describe('the SKUs asked for that are not in the active catalog, as sent'),
});

/** The claim form of a dealer's page: the warranty module's field rules, with a reference and an email address required. */
export const customerClaimBody = z.strictObject({
  description: claimFields.description,
  sku: claimFields.sku.optional().describe(`${claimFields.sku.description ?? ''} Optional.`),
  dot_number: claimFields.dot_number.optional().describe(`${claimFields.dot_number.description ?? ''} Optional.`),
  quantity: claimFields.quantity.optional().describe(`${claimFields.quantity.description ?? ''} Optional.`),
  customer_ref: claimFields.customer_ref.describe(`${claimFields.customer_ref.description ?? ''} Required: it is what looks the claim up later.`),
  contact_email: claimFields.contact_email.describe(`${claimFields.contact_email.description ?? ''} Required.`),
});

export const customerClaimOutput = z.object({
  claim_number: z.string().describe('the claim number, `WC-` and 6 or more digits'),
  status: z.enum(CLAIM_STATUSES).describe('submitted, under_review, approved, denied or closed'),
});

export const claimNumberParams = z.strictObject({
  claim_number: identifier(32, 'claim_number').describe('The claim number given when the claim was filed (`WC-000042`, any case).'),
});

export const claimLookupQuery = z.strictObject({
  customer_ref: claimFields.customer_ref.describe('The reference given when the claim was filed. Required.'),
});
