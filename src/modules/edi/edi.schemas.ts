import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../../platform/http/errors.js';
import { limitParam } from '../../platform/http/pagination.js';

/** POST /v1/edi takes interchanges up to this size (the app-wide JSON limit is far smaller). */
export const MAX_INTERCHANGE_BYTES = 10 * 1024 * 1024;

const EDI_DIRECTIONS = ['inbound', 'outbound'] as const;
export type EdiDirection = (typeof EDI_DIRECTIONS)[number];
const EDI_TYPES = ['850', '855', '856', '810', '997'] as const;

/** `received` while processing; `duplicate`/`conflict` are resends; `failed` kept the body through an internal error. */
const MESSAGE_STATUSES = ['received', 'accepted', 'partial', 'rejected', 'not_x12', 'duplicate', 'conflict', 'failed', 'generated'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Per transaction set; `test` is a set of an ISA15 T interchange: checked and acknowledged, no order made. */
const DOCUMENT_STATUSES = ['accepted', 'partial', 'rejected', 'received', 'test', 'generated'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

/** A finding with where it is: X12 syntax (position, segment, element) or a business reason (line = PO101). */
export const ediErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  level: z.string().optional(),
  position: z.number().int().optional(),
  segment_id: z.string().optional(),
  element: z.number().int().optional(),
  group_control: z.string().optional(),
  set_control: z.string().optional(),
  line: z.string().optional(),
  value: z.string().optional(),
});
export type EdiError = z.infer<typeof ediErrorSchema>;

const documentSchema = z.object({
  type: z.string(),
  control_number: z.string(),
  status: z.enum(DOCUMENT_STATUSES),
  po_number: z.string().optional(),
  order_id: z.string().optional(),
  errors: z.array(ediErrorSchema).optional(),
});
export type DocumentView = z.infer<typeof documentSchema>;

const partnerRefSchema = z.object({ id: z.string(), name: z.string() });

const acknowledgmentSchema = z.object({
  /** GS06 of the inbound group acknowledged. */
  group: z.string(),
  code: z.enum(['A', 'E', 'P', 'R']),
  message_id: z.string(),
  x12: z.string(),
});

export const submitResultSchema = z
  .object({
    message_id: z.string(),
    partner: partnerRefSchema,
    acknowledgments: z.array(acknowledgmentSchema),
    documents: z.array(documentSchema),
  })
  .meta({ id: 'EdiSubmitResult' });
export type SubmitResult = z.infer<typeof submitResultSchema>;

const errorCodes = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

/** What POST /v1/edi answered, kept on the message so a resend of the same bytes gets the same answer. */
export const storedAnswerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ok'), body: submitResultSchema }),
  z.object({ kind: z.literal('error'), code: z.enum(errorCodes), message: z.string(), details: z.unknown().optional() }),
]);
export type StoredAnswer = z.infer<typeof storedAnswerSchema>;

const deliverySchema = z.object({ status: z.enum(['queued', 'delivered', 'rejected']), attempts: z.number().int(), last_error: z.string().nullable() });

export const messageSummarySchema = z.object({
  id: z.string(),
  direction: z.enum(EDI_DIRECTIONS),
  type: z.string().nullable(),
  status: z.enum(MESSAGE_STATUSES),
  partner: partnerRefSchema.nullable(),
  control_number: z.string().nullable(),
  size: z.number().int(),
  sha256: z.string(),
  related_message_id: z.string().nullable(),
  order_id: z.string().nullable(),
  /** Outbound documents sent to the partner's URL: where that delivery stands; null otherwise. */
  delivery: deliverySchema.nullable(),
  created_at: z.string(),
});
export type MessageSummary = z.infer<typeof messageSummarySchema>;

export const messageDetailSchema = messageSummarySchema
  .extend({
    documents: z.array(documentSchema),
    errors: z.array(ediErrorSchema),
    x12: z.string(),
  })
  .meta({ id: 'EdiMessage' });
export type MessageDetail = z.infer<typeof messageDetailSchema>;

export const listMessagesQuery = z.strictObject({
  direction: z.enum(EDI_DIRECTIONS).optional(),
  type: z.enum(EDI_TYPES).optional(),
  partner: z.string().min(1).max(200).optional().describe('partner id or name'),
  limit: limitParam(200, 50),
  cursor: z.string().max(500).optional(),
});
export type ListMessagesQuery = z.infer<typeof listMessagesQuery>;

export const messageParams = z.strictObject({ id: z.string().min(1).max(200) });

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
});
export type StoredLine = z.infer<typeof storedLineSchema>;

/** edi_documents.detail */
export const documentDetailSchema = z.object({
  errors: z.array(ediErrorSchema),
  version: z.enum(['004010', '005010']).optional(),
  po_date: z.string().optional(),
  lines: z.array(storedLineSchema).optional(),
});
export type DocumentDetail = z.infer<typeof documentDetailSchema>;
