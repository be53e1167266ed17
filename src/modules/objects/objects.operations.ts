import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/scopes.js';
import { invalidFromIssues } from '../../platform/core/issues.js';
import { defineRead, defineWrite, type Operation, type OperationScope, type RequestParts } from '../../platform/operations/operation.js';
import {
  objectParams,
  objectRowSchema,
  queryRowsArgs,
  queryRowsQuery,
  readableObjectSchema,
  writeRowsInput,
} from './objects.schemas.js';
import type { ObjectsService } from './objects.service.js';

/**
 * Object scopes are per object (`objects:<key>:read|write`) and objects are per org, defined at run time: a key sees
 * these operations when it holds any object scope of the kind, and the service checks the object's own scope per call.
 */
function objectScope(kind: 'read' | 'write'): OperationScope {
  return {
    describe: `objects:<key>:${kind}`,
    visibleTo: (auth: AuthContext) => [...auth.scopes].some((s) => s.startsWith('objects:') && s.endsWith(`:${kind}`)),
  };
}

/** MCP arguments of objects_query back to REST's parts; typed filter values become query-string text, REST's one parser. */
function queryParts(args: unknown): RequestParts {
  // Checked here as well as by the tool layer: an argument this shape does not know must not drop a filter silently.
  const parsed = queryRowsArgs.safeParse(args);
  if (!parsed.success) throw invalidFromIssues(parsed.error.issues, 'arguments');
  const { object, filters, limit, cursor, updated_since } = parsed.data;
  const query: Record<string, unknown> = Object.fromEntries(Object.entries(filters ?? {}).map(([field, value]) => [field, String(value)]));
  if (limit !== undefined) query.limit = limit;
  if (cursor !== undefined) query.cursor = cursor;
  if (updated_since !== undefined) query.updated_since = updated_since;
  return { params: { object }, query, body: undefined };
}

const exampleFitment = {
  fitment_id: 'AUDI-A4-2020-17',
  make: 'Audi',
  year: 2020,
  oe: true,
  season: 'summer',
  notes: null,
};

const exampleObject = {
  key: 'fitments',
  label: 'Vehicle fitments',
  writable: true,
  key_field: 'fitment_id',
  filterable_fields: ['fitment_id', 'make', 'year', 'oe', 'season'],
  fields: [
    { name: 'fitment_id', type: 'string', required: true, max_length: 32, filterable: false },
    { name: 'make', type: 'string', required: true, max_length: 40, filterable: true },
    { name: 'year', type: 'integer', required: false, min: 1950, max: 2100, filterable: true },
    { name: 'oe', type: 'boolean', required: false, filterable: true },
    { name: 'season', type: 'enum', required: false, enum_values: ['summer', 'winter', 'all_season'], filterable: true },
    { name: 'notes', type: 'string', required: false, max_length: 200, filterable: false },
  ],
  row_schema: {
    type: 'object',
    properties: {
      fitment_id: { type: 'string', maxLength: 32 },
      make: { type: 'string', maxLength: 40 },
      year: { anyOf: [{ type: 'integer', minimum: 1950, maximum: 2100 }, { type: 'null' }] },
      oe: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
      season: { anyOf: [{ type: 'string', enum: ['summer', 'winter', 'all_season'] }, { type: 'null' }] },
      notes: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'null' }] },
    },
    required: ['fitment_id', 'make'],
    additionalProperties: false,
  },
};

const rowsOut = z.array(objectRowSchema).describe('the rows, each with every field of the object, null where absent');

/** The operator-defined object operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function objectsOperations(objects: ObjectsService): Operation[] {
  return [
    defineRead({
      name: 'objects_list_definitions',
      method: 'GET',
      path: '/v1/objects',
      scope: objectScope('read'),
      summary: 'List custom objects',
      description:
        'List the operator-defined objects (e.g. fitments, price lists) of your organisation whose read scope your key holds: ' +
        'key, label, whether you can write it, its fields (name, type, required, enum values, limits, filterable), the key ' +
        'field rows upsert on, the filterable fields, and the JSON Schema of one row. Call this first: objects_query and ' +
        'objects_write take the object key and follow these definitions. A key holding no object scope gets an empty list.',
      output: z.object({ objects: z.array(readableObjectSchema) }),
      result: 'objects',
      status: 200,
      returns: 'the objects this key can read.',
      errors: {},
      example: { response: { objects: [exampleObject] } },
      handle: ({ db, auth }) => objects.readable(db, auth),
    }),
    defineRead({
      name: 'objects_query',
      method: 'GET',
      path: '/v1/objects/:object',
      scope: objectScope('read'),
      summary: 'Query a custom object',
      description:
        'Read rows of an object listed by objects_list_definitions; needs that object\'s read scope. Filters are equality ' +
        'filters on its filterable fields (and its key field), each value read as the field\'s type (integer, number, boolean ' +
        'true/false, date YYYY-MM-DD, ISO 8601 date-time with a zone, enum value, or exact case-sensitive string); several ' +
        'filters AND together. Over REST every query parameter other than `limit` and `cursor` is a filter (`?make=Audi&year=2020`); ' +
        'over MCP they go in `filters`. An unknown, non-filterable, repeated or ill-typed filter is refused with every problem listed. ' +
        'Rows come in the order they were first written, `limit` (1-1000, default 100) per page; pass `next_cursor` back as `cursor`. ' +
        'To sync, pass `updated_since`: every row written (created or replaced) at or after it, oldest write first, and ' +
        '`next_updated_since`, the time of the last row listed, to pass as `updated_since` for the next sync.',
      params: objectParams,
      query: queryRowsQuery,
      output: z.object({
        rows: rowsOut,
        next_cursor: z.string().nullable().describe('cursor of the next page; null on the last'),
        next_updated_since: z
          .string()
          .optional()
          .describe('with updated_since only: when the last row listed was written (or updated_since itself on an empty page), the updated_since of the next sync'),
      }),
      status: 200,
      returns: 'one page of matching rows: in the order first written, or oldest write first with updated_since.',
      errors: {
        not_found: 'No object with this key in your organisation (answered before the scope is checked).',
        invalid_input: 'An unknown, non-filterable, repeated or ill-typed filter (`details` lists each); or `updated_since` on an object with a field of that name, defined before the name was reserved.',
        concurrent_change: 'The object is being redefined and a filter reads a field whose stored values are being rewritten; try again shortly.',
      },
      example: {
        params: { object: 'fitments' },
        query: { make: 'Audi', year: '2020', updated_since: '2026-06-01T00:00:00Z', limit: '20' },
        response: { rows: [exampleFitment], next_cursor: null, next_updated_since: '2026-06-01T12:00:00.000Z' },
      },
      mcp: {
        input: queryRowsArgs,
        toParts: queryParts,
        why:
          "REST's query string is open-ended (every parameter but limit, cursor and updated_since filters on one of the object's own fields), " +
          'which cannot merge into a strict argument object; MCP takes the filters as one typed `filters` object instead.',
      },
      handle: ({ db, auth }, { params, query }) => {
        const { limit, cursor, updated_since, ...filters } = query;
        return objects.query(db, auth, params.object, filters, {
          limit,
          ...(cursor === undefined ? {} : { cursor }),
          ...(updated_since === undefined ? {} : { updated_since }),
        });
      },
    }),
    defineWrite({
      name: 'objects_write',
      method: 'POST',
      path: '/v1/objects/:object',
      scope: objectScope('write'),
      summary: 'Write rows of a custom object',
      description:
        'Write 1-1000 rows to a writable object listed by objects_list_definitions; needs that object\'s write scope, and a ' +
        'read-only object is refused (405). Each row must match the object\'s row_schema. If any row is invalid nothing is ' +
        'written and the error lists `{ row, field, message }` for each problem (row counts from 0). Otherwise all rows are ' +
        'written in one transaction: with a key field, a row whose key exists replaces the stored row (not a merge); without ' +
        'one, rows append, so send an idempotency key to retry safely.',
      params: objectParams,
      body: writeRowsInput,
      output: z.object({ written: z.number().int().describe('how many rows were written'), rows: rowsOut }),
      status: 200,
      returns: 'the rows as stored.',
      errors: {
        not_found: 'No object with this key in your organisation (answered before the scope is checked).',
        method_not_allowed: 'The object is read-only (`Allow: GET`).',
        concurrent_change:
          'The object was redefined while the rows were being written, or is being redefined with a new key field; nothing was written, send them again (shortly).',
        row_invalid: 'Some rows are invalid; nothing was written. `details` lists `{ row, field, message }` for each problem (`param` names the first, e.g. `rows[0].year`).',
      },
      // Replaces stored rows whose key exists; on an object without a key field the same rows twice append twice.
      hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
      example: {
        params: { object: 'fitments' },
        body: { rows: [{ fitment_id: 'AUDI-A4-2020-17', make: 'Audi', year: 2020, oe: true, season: 'summer' }] },
        response: { written: 1, rows: [exampleFitment] },
      },
      beforeBody: (auth, { object }) => objects.checkWritable(auth, object),
      handle: ({ tx, auth }, { params, body }) => objects.write(tx, auth, params.object, body),
    }),
  ];
}
