import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../platform/http/api-auth.js';
import { authErrorResponses, errorEnvelope, okEnvelope } from '../../platform/http/envelope.js';
import { objectKeyParams, objectRowSchema, readableObjectSchema, writeRowsInput } from './objects.schemas.js';
import type { ObjectsService } from './objects.service.js';

const tags = ['objects'];
const security = [{ bearerAuth: [] }];
// Filters are the object's own fields, so only paging is named; every other parameter passes through to the service.
const filterQuery = z
  .object({
    limit: z.string().optional().describe('rows per page, 1-1000 (default 100)'),
    cursor: z.string().optional().describe('next_cursor of the previous page'),
  })
  .catchall(z.union([z.string(), z.array(z.string())]));

/** REST door onto ObjectsService: parse, call, wrap. No logic lives here. */
export function objectsRoutes(objects: ObjectsService): FastifyPluginAsyncZod {
  return (app) => {
    app.get('/objects', {
      schema: {
        tags, security, summary: 'List the objects this key can read',
        description:
          'The operator-defined objects of your organisation that this key holds the read scope of, each with its fields, ' +
          'filterable fields, key field, whether this key may write it, and the JSON Schema of one row.',
        response: { 200: okEnvelope({ objects: z.array(readableObjectSchema) }), ...authErrorResponses },
      },
    }, async (request) => ({ ok: true as const, objects: await objects.readable(authOf(request)) }));

    app.get('/objects/:key', {
      schema: {
        tags, security, summary: 'Query the rows of an operator-defined object',
        description:
          'Needs the object\'s read scope. Every other query parameter is an equality filter on a filterable field ' +
          '(or the key field), its value read as the field\'s type; several filters AND together. ' +
          '`limit` (1-1000, default 100) and `cursor` page through the rows in the order they were first written.',
        params: objectKeyParams,
        querystring: filterQuery,
        response: { 200: okEnvelope({ rows: z.array(objectRowSchema), next_cursor: z.string().nullable() }), ...authErrorResponses, 404: errorEnvelope },
      },
    }, async (request) => ({ ok: true as const, ...(await objects.query(authOf(request), request.params.key, request.query)) }));

    app.post('/objects/:key', {
      schema: {
        tags, security, summary: 'Write rows of an operator-defined object',
        description:
          'Body `{ rows: [ { <field>: <value> } ] }`, 1-1000 rows. Needs the object\'s write scope; a read-only object answers 405. ' +
          'Any invalid row refuses the whole request with 422 and `details: [{ row, field, message }]` (row counts from 0). ' +
          'Otherwise all rows are written in one transaction; with a key field, a row whose key exists replaces the stored one.',
        params: objectKeyParams,
        body: writeRowsInput,
        response: {
          200: okEnvelope({ written: z.number().int(), rows: z.array(objectRowSchema) }),
          ...authErrorResponses,
          404: errorEnvelope,
          405: errorEnvelope,
          409: errorEnvelope,
          422: errorEnvelope,
        },
      },
    }, async (request) => ({ ok: true as const, ...(await objects.write(authOf(request), request.params.key, request.body)) }));
    return Promise.resolve();
  };
}
