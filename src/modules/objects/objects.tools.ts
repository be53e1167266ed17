import { z } from 'zod';
import { CREATES, defineTool, READ_ONLY, type ToolDefinition } from '../../mcp/tool.js';
import type { AuthContext } from '../../platform/auth/scopes.js';
import { objectRowSchema, readableObjectSchema, RESERVED_FIELD_NAMES } from './objects.schemas.js';
import type { ObjectsService } from './objects.service.js';

const objectKey = z.string().min(1).max(100).describe('the object key, as listed by objects_list_definitions');

const filterValues = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .refine((f) => RESERVED_FIELD_NAMES.every((name) => !(name in f)), { message: 'limit and cursor are arguments, not filters' })
  .describe('field -> value equality filters on filterable fields, ANDed');

/** Object scopes are per object, so a key sees these tools when it holds any object scope of the kind. */
const holdsObjectScope = (kind: 'read' | 'write') => (auth: AuthContext) =>
  [...auth.scopes].some((s) => s.startsWith('objects:') && s.endsWith(`:${kind}`));

/**
 * MCP door onto ObjectsService. Which objects exist is per org and per key, so the tool schemas stay generic and
 * each call is checked against the object's definition at call time; objects_list_definitions hands the agent each
 * readable object's fields and row JSON Schema.
 */
export function objectsTools(objects: ObjectsService): ToolDefinition[] {
  return [
    defineTool({
      name: 'objects_list_definitions',
      title: 'List custom objects',
      description:
        'List the operator-defined objects (e.g. fitments, price lists) your key can read: key, label, whether you can write it, ' +
        'its fields (name, type, required, enum values, limits, filterable), the key field rows upsert on, and the JSON Schema ' +
        'of one row. Call this first; objects_query and objects_write take the object key and follow these definitions.',
      scope: holdsObjectScope('read'),
      rest: 'GET /v1/objects',
      input: z.object({}),
      output: z.object({ objects: z.array(readableObjectSchema) }),
      annotations: READ_ONLY,
      handler: async (auth) => ({ objects: await objects.readable(auth) }),
    }),
    defineTool({
      name: 'objects_query',
      title: 'Query a custom object',
      description:
        'Read rows of an object listed by objects_list_definitions. `filters` are equality filters on its filterable fields ' +
        '(and its key field), each value of the field\'s type; several filters AND together. Pass `next_cursor` back as `cursor`.',
      scope: holdsObjectScope('read'),
      rest: 'GET /v1/objects/:key',
      input: z.object({
        object: objectKey,
        filters: filterValues.optional(),
        limit: z.number().int().min(1).max(1000).optional(),
        cursor: z.string().max(500).optional(),
      }),
      output: z.object({ rows: z.array(objectRowSchema), next_cursor: z.string().nullable() }),
      annotations: READ_ONLY,
      handler: (auth, input) => {
        // The REST query string is the one parser: typed MCP values go through it as text.
        const params: Record<string, string> = Object.fromEntries(Object.entries(input.filters ?? {}).map(([k, v]) => [k, String(v)]));
        if (input.limit !== undefined) params.limit = String(input.limit);
        if (input.cursor !== undefined) params.cursor = input.cursor;
        return objects.query(auth, input.object, params);
      },
    }),
    defineTool({
      name: 'objects_write',
      title: 'Write rows of a custom object',
      description:
        'Write 1-1000 rows to a writable object listed by objects_list_definitions; each row must match its row_schema. ' +
        'If any row is invalid nothing is written and the error lists { row, field, message } for each problem. ' +
        'With a key field, a row whose key exists replaces the stored one.',
      scope: holdsObjectScope('write'),
      rest: 'POST /v1/objects/:key',
      input: z.object({ object: objectKey, rows: z.array(z.record(z.string(), z.unknown())).min(1).max(1000) }),
      output: z.object({ written: z.number().int(), rows: z.array(objectRowSchema) }),
      annotations: CREATES,
      handler: (auth, input) => objects.write(auth, input.object, { rows: input.rows }),
    }),
  ];
}
