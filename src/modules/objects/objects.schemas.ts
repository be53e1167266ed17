import { z } from 'zod';
import { freeText } from '../../platform/core/text-rules.js';
import { limitParam, sinceParams } from '../../platform/core/pagination.js';

const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'date', 'datetime', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Same shape as the key part of `objects:<key>:read`, so an object's own scopes are always grantable. */
const OBJECT_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** The scopes objects are granted by: objects:<key>:read and objects:<key>:write. */
export const OBJECT_SCOPE = /^objects:[a-z][a-z0-9_-]{0,62}:(read|write)$/;
const OBJECT_READ_SCOPE = /^objects:[a-z][a-z0-9_-]{0,62}:read$/;
const OBJECT_WRITE_SCOPE = /^objects:[a-z][a-z0-9_-]{0,62}:write$/;
/** Query parameters of GET /v1/objects/:key that are not filters. */
export const RESERVED_FIELD_NAMES = ['limit', 'cursor', 'updated_since'] as const;
const RESERVED_TEXT = 'limit, cursor and updated_since';
/** Key fields are compared as text; a float or a boolean makes a poor identity. */
const KEY_FIELD_TYPES: readonly FieldType[] = ['string', 'integer', 'enum', 'date'];
/** A filterable string lands in a btree entry; PostgreSQL caps those near 2.7 kB. */
export const FILTERABLE_STRING_MAX = 500;

const fieldSchema = z
  .strictObject({
    name: z.string().regex(FIELD_NAME, 'must be lowercase letters, digits and underscores, starting with a letter (1-63 chars)'),
    type: z.enum(FIELD_TYPES).describe('date is YYYY-MM-DD; datetime is ISO 8601 with a time zone, stored in UTC'),
    required: z.boolean().default(false),
    enum_values: z.array(z.string().min(1).max(200)).min(1).max(500).optional().describe('the allowed values of an enum field'),
    max_length: z.number().int().min(1).max(100_000).optional().describe('the longest string a string field takes'),
    min: z.number().optional().describe('the lowest value of an integer or number field'),
    max: z.number().optional().describe('the highest value of an integer or number field'),
    filterable: z.boolean().default(false).describe('whether queries can filter on the field'),
  })
  .superRefine((f, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if ((RESERVED_FIELD_NAMES as readonly string[]).includes(f.name)) issue('name', `${f.name} is reserved: ${RESERVED_TEXT} are query parameters of objects_query`);
    if (f.type === 'enum') {
      if (!f.enum_values) issue('enum_values', 'is required for enum fields');
      else if (new Set(f.enum_values).size !== f.enum_values.length) issue('enum_values', 'must not repeat a value');
    } else if (f.enum_values) issue('enum_values', `only applies to enum fields, not ${f.type}`);
    if (f.max_length !== undefined && f.type !== 'string') issue('max_length', `only applies to string fields, not ${f.type}`);
    if (f.type === 'string' && f.filterable && (f.max_length ?? 0) > FILTERABLE_STRING_MAX) {
      issue('max_length', `filterable string fields allow at most ${FILTERABLE_STRING_MAX} characters`);
    }
    for (const bound of ['min', 'max'] as const) {
      const value = f[bound];
      if (value === undefined) continue;
      if (f.type !== 'integer' && f.type !== 'number') issue(bound, `only applies to integer and number fields, not ${f.type}`);
      else if (f.type === 'integer' && !Number.isSafeInteger(value)) issue(bound, 'must be a whole number for integer fields');
    }
    if (f.min !== undefined && f.max !== undefined && f.min > f.max) issue('min', `must not be above max (${f.max})`);
  })
  .meta({ id: 'ObjectField', description: 'One field of an operator-defined object.' });

export type FieldDefinition = z.infer<typeof fieldSchema>;

/** What an operator writes in the JSON or YAML file given to `objects define`. */
export const definitionInput = z
  .strictObject({
    key: z.string().regex(OBJECT_KEY, 'must be a slug: lowercase letters, digits, _ and -, starting with a letter (1-63 chars)'),
    label: freeText(200, { min: 1, trim: true, what: 'label' }),
    read_scope: z.string().regex(OBJECT_READ_SCOPE, 'must be an object read scope: objects:<name>:read'),
    write_scope: z.string().regex(OBJECT_WRITE_SCOPE, 'must be an object write scope: objects:<name>:write').nullable().optional(),
    fields: z.array(fieldSchema).min(1, 'must list at least one field').max(100, 'at most 100 fields'),
    key_field: z.string().nullable().optional(),
  })
  .superRefine((definition, ctx) => {
    const seen = new Set<string>();
    definition.fields.forEach((f, i) => {
      if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'name'], message: `duplicate field name ${f.name}` });
      seen.add(f.name);
    });
    if (definition.key_field === undefined || definition.key_field === null) return;
    const keyField = definition.fields.find((f) => f.name === definition.key_field);
    const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['key_field'], message });
    if (!keyField) issue(`${definition.key_field} is not one of the fields`);
    else if (!keyField.required) issue(`${definition.key_field} must be a required field`);
    else if (!KEY_FIELD_TYPES.includes(keyField.type)) issue(`${definition.key_field} must be of type ${KEY_FIELD_TYPES.join(', ')}`);
  });


/** An object's definition as the service keeps and shows it. */
export interface ObjectDefinition {
  key: string;
  label: string;
  read_scope: string;
  write_scope: string | null;
  key_field: string | null;
  fields: FieldDefinition[];
  version: number;
  created_at: string;
  updated_at: string;
}

export type RowValue = string | number | boolean;
export type ObjectRow = Record<string, RowValue | null>;

export interface RowError {
  row: number;
  field: string | null;
  message: string;
}

/**
 * An object key as a caller sends it (path parameter, MCP `object`). Stricter than the identifier rule: keys are
 * defined as slugs (OBJECT_KEY, ASCII only), so nothing else can name an object and no invisible character gets through.
 */
const objectKeySchema = z
  .string()
  .regex(OBJECT_KEY, {
    error: 'object must be an object key: lowercase letters, digits, _ and -, starting with a letter (1-63 characters)',
  })
  .describe('The object key as listed by objects_list_definitions (e.g. `fitments`): lowercase letters, digits, _ and -, 1-63 characters.');

export const objectParams = z.strictObject({ object: objectKeySchema });

const filterableNote = 'equality filters on the object\'s filterable fields or its key field (see filterable_fields in objects_list_definitions)';

/**
 * GET /v1/objects/:object. Only paging is named: every other parameter is a filter on one of the object's own fields,
 * checked against its definition at call time (unknown, non-filterable, repeated or ill-typed filters are a 400).
 */
export const queryRowsQuery = z
  .strictObject({
    limit: limitParam(1000, 100).describe('Rows per page, 1-1000 (default 100).'),
    cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
    ...sinceParams(false),
  })
  .catchall(
    z
      .union([z.string(), z.array(z.string())])
      .describe(`<field>=<value>: ${filterableNote}, the value read as the field's type; several filters AND together.`),
  );

/** The same filters as MCP arguments: typed values, sent to the REST query string as text. */
export const queryRowsArgs = z.strictObject({
  object: objectKeySchema,
  filters: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .refine((f) => RESERVED_FIELD_NAMES.every((name) => !(name in f)), { message: `${RESERVED_TEXT} are arguments, not filters` })
    .optional()
    .describe(
      `Field -> value, ${filterableNote}; each value of the field's type (integer, number, boolean true/false, date YYYY-MM-DD, ` +
        'ISO 8601 date-time with a zone, enum value, or exact case-sensitive string). Several filters AND together.',
    ),
  limit: z.number().int().min(1).max(1000).optional().describe('Rows per page, 1-1000 (default 100).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
  ...sinceParams(false),
});

// Rows stay `unknown` at run time: a row that is not an object is a 422 for that row, like any other invalid row.
// The documented schema still says what a row is.
export const writeRowsInput = z.strictObject({
  rows: z
    .array(z.unknown().meta({ type: 'object', description: "One row: an object of field values following the object's row_schema." }))
    .min(1, 'send at least one row')
    .max(1000, 'at most 1000 rows per request')
    .describe(
      "1-1000 rows, each an object of field -> value following the object's row_schema (see objects_list_definitions). " +
        'All are checked before any is written; with a key field, a row whose key exists replaces the stored row.',
    ),
});
export type WriteRowsInput = z.infer<typeof writeRowsInput>;

export const objectRowSchema = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .meta({ id: 'ObjectRow', description: 'One row: every field of the object in definition order, null where the row has no value.' });

/** What a key learns about an object it can read: enough to query or write it without the operator's file. */
export const readableObjectSchema = z
  .object({
    key: z.string().describe('the object key, the `object` of objects_query and objects_write'),
    label: z.string(),
    writable: z.boolean().describe('whether the object takes writes and this key holds its write scope'),
    key_field: z.string().nullable().describe('the field rows upsert on; null when every write appends'),
    filterable_fields: z.array(z.string()).describe('the fields objects_query filters on (the key field included)'),
    fields: z.array(fieldSchema),
    row_schema: z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) of one row, as objects_write checks it'),
  })
  .meta({ id: 'ReadableObject', description: 'An operator-defined object this key can read.' });
export type ReadableObject = z.infer<typeof readableObjectSchema>;
