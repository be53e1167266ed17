import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../../../platform/core/errors.js';
import { limitParam, ONE_SINCE, oneSince, sinceParams } from '../../../platform/core/pagination.js';
import { freeText, identifier } from '../../../platform/core/text-rules.js';
import { partySchema } from '../partners/partners.schemas.js';

/** POST /v1/edi takes interchanges up to this size (the app-wide JSON limit is far smaller). */
export const MAX_INTERCHANGE_BYTES = 10 * 1024 * 1024;

/** The most of a raw interchange one answer carries (as the submit answer's inline reply): larger ones are read in parts. */
export const RAW_SLICE_BYTES = 512 * 1024;

const EDI_DIRECTIONS = ['inbound', 'outbound'] as const;
export type EdiDirection = (typeof EDI_DIRECTIONS)[number];
const EDI_TYPES = ['850', '855', '856', '810', '997', 'TA1'] as const;

/**
 * `arriving` while a large body is stored in pieces (a resend of the same bytes finishes one a stopped process left);
 * `received` while processing; `duplicate`/`conflict` are resends; `failed` kept the body through an internal error.
 */
const MESSAGE_STATUSES = ['arriving', 'received', 'accepted', 'partial', 'rejected', 'not_x12', 'duplicate', 'conflict', 'failed', 'generated'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Per transaction set; `test` is a set of an ISA15 T interchange: checked and acknowledged, no order made. */
const DOCUMENT_STATUSES = ['accepted', 'partial', 'rejected', 'received', 'test', 'generated'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** A finding with where it is: X12 syntax (position, segment, element) or a business reason (line = PO101). */
export const ediErrorSchema = z
  .object({
    code: z.string().describe("X12 code where X12 has one (e.g. 'AK502:4', 'AK304:3', 'TA105:021'), else a word ('unknown_sku', 'no_ship_to')"),
    message: z.string(),
    level: z.string().optional().describe('interchange, group, set, segment or element'),
    position: z.number().int().optional().describe('1-based segment position in the interchange'),
    segment_id: z.string().optional(),
    element: z.number().int().optional().describe('1-based element position in the segment'),
    group_control: z.string().optional().describe('GS06 of the group'),
    set_control: z.string().optional().describe('ST02 of the transaction set'),
    line: z.string().optional().describe('PO101 of the 850 line a business finding is about'),
    value: z.string().optional().describe('the offending value'),
  })
  .meta({ id: 'EdiFinding', description: 'A finding about an interchange: where (segment, element) and what (code, message).' });
export type EdiError = z.infer<typeof ediErrorSchema>;

const documentSchema = z
  .object({
    type: z.string().describe('transaction set id (ST01): 850, 997, ...'),
    control_number: z.string().describe('ST02'),
    status: z
      .enum(DOCUMENT_STATUSES)
      .describe('accepted (order made), partial (order made without some lines), rejected, received (an inbound 997), test (ISA15 T: checked, no order), generated (outbound)'),
    po_number: z.string().optional().describe('BEG03 of an 850'),
    order_id: z.string().optional().describe('the order made from it'),
    errors: z.array(ediErrorSchema).optional().describe('why it was refused, in whole or in part'),
    notes: z
      .array(z.string())
      .optional()
      .describe('how it was checked when that is not the usual way, e.g. against the nearest version\'s table because the gateway has none for its GS08'),
  })
  .meta({ id: 'EdiDocument', description: 'One transaction set of an interchange and what became of it.' });
export type DocumentView = z.infer<typeof documentSchema>;

const partnerRefSchema = z.object({ id: z.string(), name: z.string() }).describe('the trading partner');

const acknowledgmentSchema = z.object({
  group: z.string().describe('GS06 of the inbound group acknowledged'),
  code: z.enum(['A', 'E', 'P', 'R']).describe('AK901: A accepted, E accepted with errors noted, P partially accepted, R rejected'),
});

const interchangeAckSchema = z
  .object({
    code: z.enum(['A', 'E', 'R']).describe('TA104: A accepted, E accepted with errors noted, R rejected'),
    note: z.string().describe("TA105 note code: '000' no error, '025' duplicate control number, ..."),
  })
  .meta({ id: 'EdiInterchangeAck', description: 'A TA1 interchange acknowledgment (it travels in `reply`): sent when ISA14 is 1 or the interchange envelope is rejected.' });
export type InterchangeAck = z.infer<typeof interchangeAckSchema>;

const replySchema = z
  .object({
    message_id: z.string().describe('the reply as an outbound EDI message'),
    control_number: z.string().describe('its ISA13'),
    size: z.number().int().describe('bytes'),
    x12: z.string().optional().describe('the reply as X12 text; left out over 512 KB: read it with GET /v1/edi/messages/{message_id}?include=raw (in parts of 512 KB)'),
  })
  .meta({
    id: 'EdiReply',
    description: 'The one interchange the gateway answers an inbound interchange with: the TA1 when one is owed, then every 997 (one FA group per acknowledged version).',
  });
export type Reply = z.infer<typeof replySchema>;

const omittedSchema = z
  .object({
    message_id: z.string().describe('the stored message that has every document and finding: GET /v1/edi/messages/{message_id}'),
    documents: z.number().int().describe('documents left out after the first 1,000'),
    acknowledgments: z.number().int().describe('acknowledgments left out after the first 1,000'),
    findings: z.number().int().describe("findings left out after the first 1,000 (over `errors` and the documents' own)"),
  })
  .describe('present when the answer was cut to its bounds: what was left out, and where to read it all');

/** What became of one interchange: the whole answer for a body of one, each entry of `interchanges` for a body of several. */
const interchangeResultSchema = z.object({
  message_id: z.string().describe('the interchange as a stored inbound EDI message'),
  partner: partnerRefSchema,
  acknowledgments: z.array(acknowledgmentSchema).describe("each functional group's 997 verdict (AK901), except inbound 997 (FA) groups"),
  reply: replySchema.optional().describe('the interchange the gateway answers with: every 997 and the TA1'),
  documents: z.array(documentSchema).describe('one per transaction set, in the order sent'),
  interchange_ack: interchangeAckSchema.optional().describe('the TA1 verdict, when the partner asked for one (ISA14 1) or the envelope was rejected'),
  status: z
    .enum(['accepted', 'partial', 'rejected'])
    .optional()
    .describe('accepted: every set taken; partial: some sets refused (see each document); rejected: none taken'),
  errors: z.array(ediErrorSchema).optional().describe('the X12 findings (the 997s carry them too), at most 1,000 over the whole answer with the documents\' own'),
  omitted: omittedSchema.optional(),
});

/** One interchange of a body that carried several, answered as if it had come alone. */
const interchangeEntrySchema = z
  .object({
    message_id: z.string().describe('the interchange as its own stored inbound EDI message'),
    control_number: z.string().nullable().describe('ISA13; null when the ISA could not be read'),
    status: z.number().int().describe('the HTTP status the interchange alone would have been answered with'),
    result: interchangeResultSchema.optional().describe('its answer, when it was taken (status 200)'),
    error: z
      .object({
        code: z.string(),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).optional().describe('what the error envelope of this interchange alone would carry in details'),
      })
      .optional()
      .describe('why it was refused, in whole or in part (the error envelope it alone would have had)'),
  })
  .meta({ id: 'EdiInterchangeEntry', description: 'One interchange of a body that carried several (ISA...IEA ISA...IEA).' });
export type InterchangeEntry = z.infer<typeof interchangeEntrySchema>;

export const submitResultSchema = interchangeResultSchema
  .extend({
    message_id: z.string().describe('the body as a stored inbound EDI message'),
    partner: partnerRefSchema.describe('the trading partner (of the first interchange, when the body carried several)'),
    acknowledgments: z.array(acknowledgmentSchema).describe("each functional group's 997 verdict, except inbound 997 (FA) groups, over every interchange (each interchange's reply is in its entry)"),
    documents: z.array(documentSchema).describe('one per transaction set, in the order sent, over every interchange'),
    interchanges: z
      .array(interchangeEntrySchema)
      .optional()
      .describe('present when the body carried several interchanges: each one answered on its own, in order'),
  })
  .meta({ id: 'EdiSubmitResult', description: 'What became of a submitted interchange (or of each of several in one body).' });
export type SubmitResult = z.infer<typeof submitResultSchema>;

const errorCodes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** What POST /v1/edi answered, kept on the message so a resend of the same bytes gets the same answer. */
export const storedAnswerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ok'), body: submitResultSchema }),
  z.object({ kind: z.literal('error'), code: z.enum(errorCodes), message: z.string(), details: z.unknown().optional() }),
]);
export type StoredAnswer = z.infer<typeof storedAnswerSchema>;

const deliverySchema = z
  .object({ status: z.enum(['queued', 'delivered', 'rejected']), attempts: z.number().int(), last_error: z.string().nullable() })
  .describe("the delivery to the partner's URL: outbound documents sent there only; null otherwise");

export const messageSummarySchema = z
  .object({
    id: z.string(),
    direction: z.enum(EDI_DIRECTIONS),
    type: z.string().nullable().describe("the transaction sets it carries ('850' or '850,997'); null when unreadable"),
    status: z
      .enum(MESSAGE_STATUSES)
      .describe('arriving (a large body still being stored, in pieces), received (processing), accepted, partial, rejected, not_x12, duplicate (a resend of the same bytes), conflict (same ISA13, other bytes), failed (internal error), generated (outbound)'),
    partner: partnerRefSchema.nullable(),
    control_number: z.string().nullable().describe('ISA13'),
    size: z.number().int().describe('bytes as received or sent'),
    sha256: z.string().describe('of the bytes, hex'),
    related_message_id: z.string().nullable().describe('the inbound interchange an outbound document answers, or the original of a resend'),
    parent_message_id: z.string().nullable().describe('the body an interchange came in, when that body carried several interchanges'),
    order_id: z.string().nullable(),
    delivery: deliverySchema.nullable(),
    created_at: z.string().describe('ISO 8601 UTC'),
    updated_at: z.string().describe('ISO 8601 UTC: when its status last changed'),
  })
  .meta({ id: 'EdiMessageSummary', description: 'An interchange received or a document sent.' });
export type MessageSummary = z.infer<typeof messageSummarySchema>;

export const messageDetailSchema = messageSummarySchema
  .extend({
    documents: z.array(documentSchema).describe('one per transaction set'),
    errors: z.array(ediErrorSchema).describe('the findings about the interchange as a whole'),
    x12: z
      .string()
      .optional()
      .describe(`the raw interchange as received or sent, only with include=raw: at most ${RAW_SLICE_BYTES / 1024} KB from raw_offset (see \`raw\`)`),
    raw: z
      .object({
        size: z.number().int().describe('bytes of the whole raw interchange, whether included or not'),
        included: z.boolean().describe('whether `x12` holds (part of) it: include=raw asks for it'),
        offset: z.number().int().describe('the byte of the interchange `x12` starts at'),
        length: z.number().int().describe('bytes of the interchange in `x12`; 0 when not included'),
        next_offset: z.number().int().nullable().describe('raw_offset of the next part when `x12` stops before the end; else null'),
      })
      .describe('the raw interchange\'s size, and which part of it `x12` holds'),
    progress: z
      .object({ sets: z.number().int().describe('transaction sets in the interchange'), taken: z.number().int().describe('sets taken so far (their documents)') })
      .optional()
      .describe(
        'an inbound interchange still being taken (status received): it is taken in slices, each committed on its own; ' +
          'after a crash, resending the same interchange finishes it without taking any set twice',
      ),
  })
  .meta({ id: 'EdiMessage', description: 'An EDI message with its documents, findings and, when asked, its raw X12.' });
export type MessageDetail = z.infer<typeof messageDetailSchema>;

export const listMessagesQuery = z
  .strictObject({
    direction: z.enum(EDI_DIRECTIONS).optional().describe('inbound (interchanges received) or outbound (documents sent); default both.'),
    type: z.enum(EDI_TYPES).optional().describe('Transaction set the message carries: 850, 855, 856, 810 or 997.'),
    partner: freeText(200, { min: 1, what: 'partner' }).optional().describe('Trading partner id or exact name, up to 200 characters.'),
    ...sinceParams(true),
    limit: limitParam(200, 50).describe('Messages per page, 1-200 (default 50).'),
    cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
  })
  .refine(oneSince, ONE_SINCE);
export type ListMessagesQuery = z.infer<typeof listMessagesQuery>;

export const getMessageQuery = z
  .strictObject({
    include: z
      .enum(['raw'], { error: 'include must be raw' })
      .optional()
      .describe(`raw: add the raw interchange as \`x12\`, at most ${RAW_SLICE_BYTES / 1024} KB an answer; left out by default.`),
    raw_offset: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .describe('With include=raw: the byte to start at, the `raw.next_offset` of the previous answer (default 0).'),
  })
  .refine((q) => q.raw_offset === undefined || q.include === 'raw', { error: 'raw_offset needs include=raw', path: ['raw_offset'] });
export type GetMessageQuery = z.infer<typeof getMessageQuery>;

export const messageParams = z.strictObject({ id: identifier(200, 'id').describe('The EDI message id (msg_...).') });

/** One PO1 line as an 850 sent it and what became of it; outbound 855/856/810 echo these. */
const storedLineSchema = z.object({
  line_id: z.string(),
  qualifier: z.string().nullable(),
  product_id: z.string().nullable(),
  sku: z.string().nullable(),
  quantity: z.string(),
  unit: z.string(),
  unit_price: z.string(),
  accepted: z.boolean(),
  /** Every product id pair of the PO1 (PO106 onwards), echoed as sent; absent on lines stored before [7/12]. */
  product_ids: z.array(z.object({ qualifier: z.string(), id: z.string() })).optional(),
  /** PO105, the price basis (e.g. PE, NT), echoed in the 855. */
  price_basis: z.string().optional(),
  /** The line's PO4 (pack, size, unit), echoed in an 856 that carries PO4. */
  pack_size: z.object({ pack: z.string(), size: z.string().optional(), unit: z.string().optional() }).optional(),
  /** The line's requested ship date (DTM*010, CCYYMMDD): the 855's schedule date for it. */
  ship_date: z.string().optional(),
});

export type StoredLine = z.infer<typeof storedLineSchema>;

/** edi_documents.detail */
export const documentDetailSchema = z.object({
  errors: z.array(ediErrorSchema),
  version: z.enum(['004010', '005010']).optional(),
  po_date: z.string().optional(),
  lines: z.array(storedLineSchema).optional(),
  /** The 850's first N1*ST loop, echoed in the 856 and 810. */
  ship_to: partySchema.optional(),
  /** Every header N1 loop of the 850 with its N101 (ST, BT, BY, ...), in its order: the 855 echoes them, the 810 takes BT. */
  parties: z.array(z.object({ code: z.string(), party: partySchema })).optional(),
  /** The 850's requested ship date (header DTM*010, CCYYMMDD). */
  ship_date: z.string().optional(),
});
export type DocumentDetail = z.infer<typeof documentDetailSchema>;
