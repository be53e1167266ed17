import { z } from 'zod';
import { limitParam, ONE_SINCE, oneSince, sinceParams } from '../../platform/core/pagination.js';
import { freeText, identifier } from '../../platform/core/text-rules.js';
import { CLAIM_STATUSES } from './claim-states.js';
import { patchBody } from '../../platform/core/patch-body.js';

const status = z.enum(CLAIM_STATUSES);

const claimHistoryEntrySchema = z.object({
  from: status.nullable().describe('the status before; null for the first entry (filed)'),
  to: status.describe('the status after'),
  at: z.string().describe('ISO 8601 UTC'),
  key_id: z.string().describe('id of the API key that made the change'),
});

export const claimSchema = z
  .object({
    id: z.string().describe('claim id, `wc_` followed by 26 characters'),
    claim_number: z.string().describe('per-organisation claim number, `WC-` and 6 or more digits, gap-free (WC-000042)'),
    status: status.describe('submitted, under_review, approved, denied or closed'),
    description: z.string().describe('what is wrong with the tire'),
    sku: z.string().nullable().describe('the SKU as the catalog spells it'),
    dot_number: z.string().nullable().describe('the tire DOT code normalised as `DOT <plant+size+option> <week+year>`'),
    quantity: z.number().int().nullable().describe('number of tires claimed'),
    customer_ref: z.string().nullable().describe("the customer's own reference (RMA, ticket)"),
    dealer: z.string().nullable().describe("the dealer whose site filed it through the portal; null for a claim filed with an API key"),
    contact_email: z.string().nullable().describe('where to reach the customer who filed it through a dealer portal; null otherwise'),
    resolution: z.string().nullable().describe('how the claim was or will be settled'),
    history: z.array(claimHistoryEntrySchema).describe('every status change, oldest first'),
    created_at: z.string().describe('ISO 8601 UTC'),
    updated_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'WarrantyClaim', description: 'A warranty claim with its status history.' });

export type Claim = z.infer<typeof claimSchema>;

const DOT_MESSAGE = 'dot_number may contain only letters, digits and spaces';

/**
 * The DOT code's own format: letters, digits and ASCII spaces (the pattern JSON Schema consumers see). The service
 * checks the rest against the clock and 49 CFR 574.5 (excluded letters, length, a date code not in the future).
 */
const dotNumber = z
  .string()
  .max(40, { error: 'dot_number must be at most 40 characters' })
  .regex(/^[A-Za-z0-9 ]*$/, { error: DOT_MESSAGE });

/** Each field's rules, written once: the API's create and a dealer portal's form both take them. */
export const claimFields = {
  description: freeText(4000, { min: 1, trim: true, what: 'description', multiline: true }).describe(
    'What is wrong with the tire, 1-4000 characters (surrounding whitespace is trimmed). Required.',
  ),
  sku: identifier(64, 'sku').describe('SKU of the product claimed, 1-64 characters without spaces; must be in your catalog (matched case-insensitively).'),
  dot_number: dotNumber.describe(
    'Tire DOT code (Tire Identification Number), up to 40 letters, digits and spaces, e.g. "DOT U2LL LMLR 5107": an optional ' +
      '`DOT`, plant and size code (and optional code), ending in the 4-digit week+year date code, which cannot lie in the future. ' +
      'G, I, O, Q, S and Z never occur after `DOT`. Stored normalised as `DOT U2LLLMLR 5107`.',
  ),
  quantity: z.number().int().positive().max(1_000_000).describe('Number of tires claimed, a whole number 1-1000000.'),
  customer_ref: freeText(128, { min: 1, trim: true, what: 'customer_ref' }).describe(
    "Your customer's reference (RMA, ticket), 1-128 characters (surrounding whitespace is trimmed).",
  ),
  contact_email: z
    .email({ error: 'contact_email must be an email address' })
    .max(254, { error: 'contact_email must be at most 254 characters' })
    .describe('Where to reach the customer, an email address of at most 254 characters.'),
};

/** A field the API's create may leave out (or send as null), described as such. */
const optionalField = <T extends z.ZodType>(field: T) => field.nullable().optional().describe(`${field.description ?? ''} Optional.`);

export const createClaimInput = z.strictObject({
  description: claimFields.description,
  sku: optionalField(claimFields.sku),
  dot_number: optionalField(claimFields.dot_number),
  quantity: optionalField(claimFields.quantity),
  customer_ref: optionalField(claimFields.customer_ref),
});
export type CreateClaimInput = z.infer<typeof createClaimInput>;

/** A claim a customer files on a dealer's site: the reference and an email address are required, to look it up and to reach them. */
export interface CustomerClaimInput {
  description: string;
  sku?: string | undefined;
  dot_number?: string | undefined;
  quantity?: number | undefined;
  customer_ref: string;
  contact_email: string;
}

/** What a customer may learn of a claim: its number and status, nothing else. */
export interface CustomerClaimStatus {
  claim_number: string;
  status: Claim['status'];
}

export const updateClaimInput = patchBody(
  z.strictObject({
    status: status
      .optional()
      .describe(
        'The status to move to: submitted -> under_review, approved, denied, closed; under_review -> approved, denied, closed; ' +
          'approved -> closed; denied -> under_review (appeal), closed; closed is final.',
      ),
    resolution: freeText(4000, { what: 'resolution', multiline: true })
      .nullable()
      .optional()
      .describe('How the claim is settled, up to 4000 characters; null clears it. Cannot change once the claim is closed.'),
  }),
);
export type UpdateClaimInput = z.infer<typeof updateClaimInput>;

export const listClaimsQuery = z
  .strictObject({
    status: status.optional().describe('Only claims in this status: submitted, under_review, approved, denied or closed.'),
    ...sinceParams(true),
    limit: limitParam(200, 50).describe('Claims per page, 1-200 (default 50).'),
    cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
  })
  .refine(oneSince, ONE_SINCE);
export type ListClaimsQuery = z.infer<typeof listClaimsQuery>;

export const claimRefParams = z.strictObject({
  id_or_number: identifier(100, 'id_or_number').describe('The claim id (`wc_…`) or claim number (`WC-000042`, any case).'),
});
