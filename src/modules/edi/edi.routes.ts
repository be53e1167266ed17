import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../platform/http/api-auth.js';
import { authErrorResponses, errorEnvelope, okEnvelope } from '../../platform/http/envelope.js';
import type { EdiService } from './edi.service.js';
import { listMessagesQuery, MAX_INTERCHANGE_BYTES, messageDetailSchema, messageParams, messageSummarySchema, submitResultSchema } from './edi.schemas.js';

const tags = ['edi'];
const security = [{ bearerAuth: [] }];
/** X12's registered media type (RFC 1767) is taken as well as the spec's text/plain. */
const X12_MEDIA_TYPES = ['text/plain', 'application/edi-x12'];

const rawInterchange = z
  .custom<Buffer>((value) => Buffer.isBuffer(value), 'send the interchange as the raw request body')
  .meta({ type: 'string', description: 'One raw X12 interchange (ISA ... IEA), at most 10 MB.' });

/** REST door onto EdiService: parse, call, wrap. No logic lives here. */
export function ediRoutes(edi: EdiService): FastifyPluginAsyncZod {
  return (app) => {
    // This plugin's own parsers: the body is kept as bytes (stored and hashed as received); JSON is refused with 415.
    app.removeContentTypeParser(['application/json', 'text/plain']);
    app.addContentTypeParser(X12_MEDIA_TYPES, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.post('/edi', {
      bodyLimit: MAX_INTERCHANGE_BYTES,
      schema: {
        tags, security, summary: 'Submit an X12 interchange',
        description:
          'Body: one raw interchange (`text/plain` or `application/edi-x12`, up to 10 MB), stored as received. The sender (ISA05/ISA06) must be ' +
          "one of your trading partners and the receiver (ISA07/ISA08) your organisation's interchange id. 850s become orders; a 997 per " +
          'functional group is returned in `acknowledgments` (and an 855 goes to the partner for a refused PO or line). Not X12 -> 400. ' +
          'X12 errors -> 422 whose `details` carry `errors` (segment position, segment id, element, X12 code) plus the same fields as a ' +
          'success, the 997s included. The same interchange again (same ISA13, same bytes) gets the stored answer; the same ISA13 with ' +
          'other bytes -> 409.',
        consumes: X12_MEDIA_TYPES,
        body: rawInterchange,
        response: {
          200: okEnvelope(submitResultSchema.shape),
          ...authErrorResponses,
          409: errorEnvelope,
          413: errorEnvelope,
          415: errorEnvelope,
          422: errorEnvelope,
        },
      },
    }, async (request) => ({ ok: true as const, ...(await edi.submit(authOf(request), request.body)) }));

    app.get('/edi/messages', {
      schema: {
        tags, security, summary: 'List EDI messages, newest first',
        description: 'Interchanges received and documents sent. Filter by `direction`, by transaction set `type` and by `partner` (id or name).',
        querystring: listMessagesQuery,
        response: { 200: okEnvelope({ messages: z.array(messageSummarySchema), next_cursor: z.string().nullable() }), ...authErrorResponses },
      },
    }, async (request) => ({ ok: true as const, ...(await edi.listMessages(authOf(request), request.query)) }));

    app.get('/edi/messages/:id', {
      schema: {
        tags, security, summary: 'Get an EDI message with its raw X12',
        params: messageParams,
        response: { 200: okEnvelope({ message: messageDetailSchema }), ...authErrorResponses, 404: errorEnvelope },
      },
    }, async (request) => ({ ok: true as const, message: await edi.getMessage(authOf(request), request.params.id) }));
    return Promise.resolve();
  };
}
