import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';

const issue = z.object({ path: z.string().describe('the dotted path of the field (`lines.2.sku`)'), message: z.string() });
const issueList = z.array(issue).describe('each problem with the field it is about').meta({ id: 'ErrorIssues' });
const lineProblems = z
  .array(
    issue.extend({
      index: z.number().int().optional().describe('the line, from 0'),
      sku: z.string().optional(),
      code: z.string().optional().describe("this line's own code (unknown_sku, inactive_sku, invalid_quantity, invalid_price)"),
    }),
  )
  .describe('each refused line, or the refused field');
const transition = z.object({
  requested: z.string().optional().describe('the status asked for'),
  status: z.string().describe('the current status'),
  allowed: z.array(z.string()).describe('the statuses it can move to from here (empty: final)'),
});
const rowProblems = z.array(z.object({ row: z.number().int().describe('the row, from 0'), field: z.string().nullable(), message: z.string() }));
const storedRowProblems = z.array(z.object({ row_id: z.number().int(), key: z.string().nullable(), field: z.string().nullable(), message: z.string() }));
const missingSegments = z.array(z.object({ document: z.string(), segment: z.string(), needs: z.string().describe('what to send for it') }));
const ediAnswer = z
  .looseObject({ message_id: z.string().describe('the EDI message the interchange is kept as'), errors: z.array(z.looseObject({})).optional() })
  .describe('the interchange as far as it was read: message_id, errors, and once processed partner, acknowledgments, documents, reply');

/** Each family of codes with the `details` it carries; a code not listed carries none. One schema per code in OpenAPI. */
const DETAILS: [readonly ErrorCode[], z.ZodType | undefined][] = [
  [['invalid_input'], z.union([issueList, ediAnswer])],
  [['order_invalid'], issueList],
  [['unknown_sku', 'inactive_sku', 'invalid_quantity', 'invalid_price'], lineProblems],
  [['invalid_transition'], transition],
  [['row_invalid'], rowProblems],
  [['rows_do_not_fit'], storedRowProblems],
  [['partner_requirements_unmet'], missingSegments],
  [['interchange_invalid', 'unknown_partner', 'wrong_receiver', 'interchange_rejected', 'duplicate_control_number'], ediAnswer],
  [['unavailable'], z.object({ message_id: z.string() }).describe('the EDI message whose processing to wait for, when it is one')],
  [['vendor_error'], z.object({ status: z.number().int().describe("the vendor's HTTP status"), retry_after_seconds: z.number().int().optional() })],
  [['vendor_document_invalid'], z.object({ path: z.string(), reason: z.string() })],
  [
    ['secret_shown_once'],
    z.object({
      id: z.string().optional().describe('the id of what the first call created (`key_…`, `pkey_…`, a webhook endpoint `whe_…`)'),
      expires_at: z.string().nullable().optional().describe('when its secret stops working, ISO 8601 UTC'),
    }),
  ],
  // Answers stored by an earlier version replay as they were stored.
  [['conflict', 'unprocessable'], z.unknown()],
];

const base = {
  ok: z.literal(false),
  status: z.number().int().describe('the HTTP status'),
  error: z.string().describe('what went wrong, for a person'),
  request_id: z.string(),
  param: z.string().optional().describe('the input at fault, when one is: `lines[2].sku`, `status`, `Idempotency-Key`'),
  doc_url: z.string().describe('where the code is explained: `docs/errors.md#<code>` in the gateway\'s source'),
};

/** The envelope of the codes that share one `details` schema, named after the first of them. */
function variant(codes: readonly ErrorCode[], details: z.ZodType | undefined): z.ZodObject {
  const [first = 'internal', ...rest] = codes;
  const schema = z.object({ ...base, code: z.enum([first, ...rest]), ...(details === undefined ? {} : { details: details.optional() }) });
  return schema.meta({ id: `Error_${first}`, description: `The error envelope of ${codes.map((c) => `\`${c}\``).join(', ')}.` });
}

const detailed = new Set(DETAILS.flatMap(([codes]) => codes));
const plain = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => !detailed.has(code));

/**
 * The error envelope `{ ok: false, status, error, code, request_id, param?, details?, doc_url }`, as the OpenAPI document
 * shows it: one variant per family of codes, each with its own `details`; codes without details carry none.
 */
export const errorEnvelope = z
  .discriminatedUnion('code', [...DETAILS.map(([codes, details]) => variant(codes, details)), variant(plain, undefined)] as unknown as [z.ZodObject, ...z.ZodObject[]])
  .meta({ id: 'Error' });
