import { z } from 'zod';
import { limitParam } from '../../../platform/core/pagination.js';
import { identifier } from '../../../platform/core/text-rules.js';
import { REQUIRABLE, VALIDATION_LEVELS } from './partners.constants.js';

export { REQUIRABLE, VALIDATION_LEVELS } from './partners.constants.js';

/** An N1 loop: name, identification (N103/N104: e.g. 92 and a store number) and address (N3/N4). */
export const partySchema = z.object({
  name: z.string(),
  id_qualifier: z.string().optional(),
  id: z.string().optional(),
  street: z.array(z.string()).optional(),
  city: z.string().optional(),
  state: z.string().optional(),
  postal: z.string().optional(),
  country: z.string().optional(),
});
export type Party = z.infer<typeof partySchema>;

export type RequiringDocument = keyof typeof REQUIRABLE;
export const REQUIRING_DOCUMENTS = Object.keys(REQUIRABLE) as RequiringDocument[];

const requiredSegments = z
  .object({
    '855': z.array(z.enum(REQUIRABLE['855'])).optional(),
    '856': z.array(z.enum(REQUIRABLE['856'])).optional(),
    '810': z.array(z.enum(REQUIRABLE['810'])).optional(),
  })
  .strict();
export type RequiredSegments = z.infer<typeof requiredSegments>;

/** How strictly an inbound interchange from the partner is checked. */
export type ValidationLevel = (typeof VALIDATION_LEVELS)[number];

const profileFields = z.object({
  /** N1*SF of the 856. */
  ship_from: partySchema.optional(),
  /** N1*RE of the 810. */
  remit_to: partySchema.optional(),
  /** N1*BT of the 810 when the 850 named no bill-to. */
  bill_to: partySchema.optional(),
  /** REF*IA: the vendor number the partner knows us by. */
  vendor_number: z.string().optional(),
  /** TD5/CAD carrier when the shipment names none. */
  scac: z.string().optional(),
  /** Days from acknowledgment to shipping: the 855's schedule date when the 850 asks no ship date. */
  lead_days: z.number().int().optional(),
  /** ITD of the 810: net days, with an optional early-payment discount (percent as decimal text, days). */
  terms: z.object({ net_days: z.number().int(), discount_percent: z.string().optional(), discount_days: z.number().int().optional() }).optional(),
  /** TD101 packaging code (CTN25 cartons, PLT94 pallets, ...). */
  packaging: z.string().optional(),
  require: requiredSegments.optional(),
  /** Inbound checks; absent means strict. */
  validation: z.enum(VALIDATION_LEVELS).optional(),
});

/**
 * edi_partners.document_profile: what a partner's guide asks of the documents we send (and how its own are checked).
 * Profiles written before [15/20] held the 856's list as `require_856`; they read as `require['856']`.
 */
export const documentProfileSchema = z.preprocess((raw) => {
  if (typeof raw !== 'object' || raw === null || !('require_856' in raw)) return raw;
  const { require_856: old, ...rest } = raw as Record<string, unknown> & { require?: Record<string, unknown> };
  return { ...rest, require: { '856': old, ...rest.require } };
}, profileFields);
export type DocumentProfile = z.infer<typeof profileFields>;

const interchangeIdSchema = z
  .object({
    qualifier: z.string().describe('ISA05/ISA07: the 2-character id qualifier (ZZ, 01, 12, ...)'),
    id: z.string().describe('ISA06/ISA08 without its padding: the ISA writes it space-padded to 15 characters'),
  })
  .meta({ id: 'EdiInterchangeId', description: 'An X12 interchange id: qualifier and id.' });

const ourInterchangeIdSchema = interchangeIdSchema
  .extend({ main: z.boolean().describe('true for the id our documents come from; partners may address the others too') })
  .meta({ id: 'EdiOurInterchangeId', description: 'An interchange id (ISA07/ISA08) partners may address your organisation under.' });
export type OurInterchangeId = z.infer<typeof ourInterchangeIdSchema>;

/** A trading partner as the API shows it: what a sender needs to address an interchange, nothing secret. */
export const partnerSchema = z
  .object({
    id: z.string().describe('the partner id (`tp_…`)'),
    name: z.string(),
    isa: interchangeIdSchema.describe("the partner's interchange id: ISA05/ISA06 of what it sends (edi_submit needs it)"),
    gs_id: z.string().nullable().describe('GS02 the partner sends from; null when not fixed'),
    our_isa: interchangeIdSchema.nullable().describe("your organisation's main interchange id: ISA07/ISA08 of what the partner sends"),
    sku_qualifiers: z.array(z.string()).describe('PO1 product id qualifiers tried for the SKU, in order'),
    validation: z.enum(VALIDATION_LEVELS).describe("how strictly the partner's interchanges are checked"),
    outbound_delivery: z
      .boolean()
      .describe("whether documents to this partner are also delivered to its own URL (the URL is not shown: it may carry credentials)"),
    documents: profileFields.describe("what the partner's guide asks of the documents we send (parties, vendor number, terms, required segments)"),
    created_at: z.string().describe('ISO 8601 UTC'),
  })
  .meta({ id: 'EdiPartner', description: 'A trading partner of your organisation and the interchange ids between you.' });
export type PartnerApiView = z.infer<typeof partnerSchema>;

export const listPartnersOutput = z.object({
  partners: z.array(partnerSchema),
  our_interchange_ids: z.array(ourInterchangeIdSchema).describe('every interchange id your organisation is addressed under, the main one first'),
  next_cursor: z.string().nullable().describe('cursor of the next page; null on the last'),
});

export const listPartnersQuery = z.strictObject({
  limit: limitParam(200, 50).describe('Partners per page, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListPartnersQuery = z.infer<typeof listPartnersQuery>;

export const partnerParams = z.strictObject({ id: identifier(100, 'id').describe('The partner id (`tp_…`).') });
