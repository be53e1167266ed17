import { z } from 'zod';
import { defineRead, defineSteps, type Operation } from '../../../platform/operations/operation.js';
import {
  getMessageQuery,
  listMessagesQuery,
  MAX_INTERCHANGE_BYTES,
  messageDetailSchema,
  messageParams,
  messageSummarySchema,
  RAW_SLICE_BYTES,
  submitResultSchema,
} from './messages.schemas.js';
import type { EdiService } from './messages.service.js';

/** X12's registered media type (RFC 1767) is taken as well as text/plain. */
const X12_MEDIA_TYPES = ['text/plain', 'application/edi-x12'];

/** A small 004010 850 from BuyerCo (the ISA is fixed-width: 106 characters up to the segment terminator). */
const exampleInterchange = [
  'ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *260601*1200*U*00401*000000101*1*P*>~',
  'GS*PO*BUYERCO*TIREGW*20260601*1200*101*X*004010~',
  'ST*850*0001~',
  'BEG*00*SA*PO-1001**20260601~',
  'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42~',
  'N3*100 Main St*Suite 5~',
  'N4*Springfield*IL*62701*US~',
  'PO1*1*4*EA*89.99**VP*TIRE-225~',
  'PO1*2*1*EA*25.0125**VP*VALVE-KIT~',
  'CTT*2~',
  'SE*9*0001~',
  'GE*1*101~',
  'IEA*1*000000101~',
  '',
].join('\n');

/** The one interchange the gateway answers the example with: the TA1 it asks for (ISA14 1), then the 997. */
const exampleReply = [
  'ISA*00*          *00*          *ZZ*TIREGATEWAY    *ZZ*BUYERCO        *260601*1200*U*00401*000000001*0*P*>~',
  'TA1*000000101*260601*1200*A*000~',
  'GS*FA*TIREGW*BUYERCO*20260601*1200*1*X*004010~',
  'ST*997*0001~',
  'AK1*PO*101~',
  'AK2*850*0001~',
  'AK5*A~',
  'AK9*A*1*1*1~',
  'SE*6*0001~',
  'GE*1*1~',
  'IEA*1*000000001~',
  '',
].join('\n');

const exampleSubmitResult = {
  message_id: 'msg_01kt1gw6g0hmayjrj388ew3c7v',
  partner: { id: 'tp_01kt1gw6g0dc6kwst4tpbhv76q', name: 'BuyerCo' },
  status: 'accepted',
  acknowledgments: [{ group: '101', code: 'A' }],
  reply: { message_id: 'msg_01kt1gw6g0ppnky9mp1q0pk3x2', control_number: '000000001', size: Buffer.byteLength(exampleReply), x12: exampleReply },
  documents: [{ type: '850', control_number: '0001', status: 'accepted', po_number: 'PO-1001', order_id: 'ord_01kt1gw6g0nfyphgwaq4w7pxm0' }],
  interchange_ack: { code: 'A', note: '000' },
};

const exampleSummary = {
  id: 'msg_01kt1gw6g0hmayjrj388ew3c7v',
  direction: 'inbound',
  type: '850',
  status: 'accepted',
  partner: { id: 'tp_01kt1gw6g0dc6kwst4tpbhv76q', name: 'BuyerCo' },
  control_number: '000000101',
  size: 399,
  sha256: '1346f80faa40849e9d2206e31017727027fb7aa493e07a4d83b0f10bafbdbd29',
  related_message_id: null,
  parent_message_id: null,
  order_id: null,
  delivery: null,
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
};

/** The raw body the invoker hands over (it refuses a missing or empty one before the handler runs). */
function rawBytes(body: unknown): Buffer {
  if (!Buffer.isBuffer(body)) throw new Error('edi_submit: the raw body is not a Buffer');
  return body;
}

/** The EDI operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function ediOperations(edi: EdiService): Operation[] {
  return [
    defineSteps({
      name: 'edi_submit',
      method: 'POST',
      path: '/v1/edi',
      scope: 'edi:write',
      summary: 'Submit an X12 interchange',
      description:
        'Submit one raw X12 interchange (ISA ... IEA) from one of your trading partners, addressed to your organisation: the ' +
        "sender (ISA05/ISA06) must be one of your partners and the receiver (ISA07/ISA08) your organisation's interchange id " +
        '(edi_partners_list, GET /v1/edi/partners, lists both). ' +
        'Over REST the interchange is the request body (`text/plain` or `application/edi-x12`, up to 10 MB), over MCP the ' +
        '`x12` argument; it is stored byte for byte as received, whatever happens next. 850 purchase orders become orders. ' +
        'The answer lists each transaction set with its status (accepted, partial, rejected, test), each functional ' +
        "group's 997 verdict, and `reply`: the one interchange the gateway answers with (every 997 and, when owed, the TA1), " +
        'as X12 text up to 512 KB; an 855 goes to the partner for a refused PO or refused lines. The status rule: 200 when ' +
        'the 997s accept at least one transaction set (`status` accepted or partial; X12 findings in `errors`); 422 ' +
        'unprocessable when none was accepted, or the sender is not your partner, the receiver not your organisation, the ' +
        'ISA unreadable or the envelope rejected (`details` carry the same fields). Not X12 -> invalid_input (400). Every ' +
        'list in the answer holds at most 1,000 entries and 1,000 findings in all; `omitted` counts the rest, which the ' +
        'stored message keeps. A TA1 verdict (`interchange_ack`) comes when ISA14 is 1 or the envelope is rejected. ' +
        'Resending the same interchange (same ISA13, same bytes) returns the stored answer and creates nothing twice; the ' +
        'same ISA13 with other bytes -> conflict (409) with a TA1 R 025 in `details.reply`.',
      rawBody: {
        field: 'x12',
        mediaTypes: X12_MEDIA_TYPES,
        maxBytes: MAX_INTERCHANGE_BYTES,
        description:
          'One X12 interchange, ISA ... IEA, at most 10 MB (over MCP the whole call must also fit the server request limit, ' +
          '1 MB by default: send larger interchanges over REST). Any delimiters the ISA declares; a leading BOM or whitespace is ignored.',
      },
      output: submitResultSchema,
      status: 200,
      returns: 'what became of each transaction set, and the reply interchange with the 997s.',
      errors: {
        invalid_input:
          'An interchange that is not X12 (it must start with ISA) is kept as an EDI message and refused with `details` ' +
          '`{ message_id, errors }`; a missing or empty one, with no details. Other invalid input as for every operation:',
        interchange_rejected:
          'No transaction set was accepted: `details` carry `message_id` and `errors` (position, segment_id, element, code), plus ' +
          '`partner`, `acknowledgments`, `reply` and `documents` (the 997s still apply).',
        interchange_invalid: 'An unreadable ISA, or a body of too many interchanges: `details` carry `message_id` and `errors`.',
        unknown_partner: 'The sender (ISA05/ISA06) is not your trading partner: `details` carry `message_id` and `errors`.',
        wrong_receiver: 'The receiver (ISA07/ISA08) is not your organisation\'s interchange id: `details` carry `message_id` and `errors`.',
        duplicate_control_number: 'This partner already sent an interchange with this ISA13 and other content: send a changed interchange with a new ISA13.',
        payload_too_large: 'The interchange is over 10 MB.',
      },
      // Makes orders and sends 855s (and hub events) out; the same interchange again gets the stored answer and changes
      // nothing but a `duplicate` entry in the message log.
      hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
      example: { body: exampleInterchange, response: exampleSubmitResult },
      handle: ({ orgId, settle }, { body }) => edi.submit(orgId, rawBytes(body), settle),
    }),
    defineRead({
      name: 'edi_messages_list',
      method: 'GET',
      path: '/v1/edi/messages',
      scope: 'edi:read',
      summary: 'List EDI messages',
      description:
        'List EDI interchanges received and documents sent (997, 855, 856, 810), newest first, with status, partner and delivery state. ' +
        'Filter by `direction` (inbound, outbound), `type` (850, 855, 856, 810, 997) and `partner` (id or name). To sync, pass ' +
        '`updated_since` (every message whose status changed at or after it) or `created_since`: the list is then oldest first ' +
        'by that time. Pass `next_cursor` back as `cursor`.',
      query: listMessagesQuery,
      output: z.object({
        messages: z.array(messageSummarySchema),
        next_cursor: z.string().nullable().describe('cursor of the next page; null on the last'),
      }),
      status: 200,
      returns: 'one page of EDI messages, newest first.',
      errors: {},
      example: { query: { direction: 'inbound', type: '850', limit: '20' }, response: { messages: [exampleSummary], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => edi.listMessages(db, orgId, query),
    }),
    defineRead({
      name: 'edi_messages_get',
      method: 'GET',
      path: '/v1/edi/messages/:id',
      scope: 'edi:read',
      summary: 'Get an EDI message',
      description:
        'Get one EDI message by id (msg_...): its summary, the status and errors of each transaction set, and `raw.size`. ' +
        `The raw X12 (up to 10 MB) is left out unless asked: include=raw adds it as \`x12\`, at most ${RAW_SLICE_BYTES / 1024} KB ` +
        'an answer; when `raw.next_offset` is not null, ask again with raw_offset set to it for the next part.',
      params: messageParams,
      query: getMessageQuery,
      output: z.object({ message: messageDetailSchema }),
      result: 'message',
      status: 200,
      returns: 'the message, with its raw X12 when asked.',
      errors: { not_found: 'No EDI message with this id in your organisation.' },
      example: {
        params: { id: exampleSummary.id },
        query: { include: 'raw' },
        response: {
          message: {
            ...exampleSummary,
            documents: exampleSubmitResult.documents,
            errors: [],
            x12: exampleInterchange,
            raw: { size: exampleSummary.size, included: true, offset: 0, length: exampleSummary.size, next_offset: null },
          },
        },
      },
      handle: ({ db, orgId }, { params, query }) => edi.getMessage(db, orgId, params.id, query),
    }),
  ];
}
