import { z } from 'zod';

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

/** 856 segments a partner's guide can make mandatory; a shipped move without their data is refused. */
export const REQUIRABLE_856 = ['N1-SF', 'TD1', 'TD5', 'REF-BM', 'REF-CN', 'MAN'] as const;
export type Requirable856 = (typeof REQUIRABLE_856)[number];

/** edi_partners.document_profile: what a partner's guide asks of the documents we send. */
export const documentProfileSchema = z.object({
  /** N1*SF of the 856. */
  ship_from: partySchema.optional(),
  /** N1*RE of the 810. */
  remit_to: partySchema.optional(),
  /** ITD of the 810: net days, with an optional early-payment discount (percent as decimal text, days). */
  terms: z.object({ net_days: z.number().int(), discount_percent: z.string().optional(), discount_days: z.number().int().optional() }).optional(),
  /** TD101 packaging code (CTN25 cartons, PLT94 pallets, ...). */
  packaging: z.string().optional(),
  require_856: z.array(z.enum(REQUIRABLE_856)).optional(),
});
export type DocumentProfile = z.infer<typeof documentProfileSchema>;
