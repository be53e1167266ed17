import { z } from 'zod';

const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'date', 'datetime', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Same shape as the key part of `objects:<key>:read`, so an object's own scopes are always grantable. */
const OBJECT_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const FIELD_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const OBJECT_READ_SCOPE = /^objects:[a-z][a-z0-9_-]{0,62}:read$/;
const OBJECT_WRITE_SCOPE = /^objects:[a-z][a-z0-9_-]{0,62}:write$/;
/** Query parameters of GET /v1/objects/:key that are not filters. */
export const RESERVED_FIELD_NAMES = ['limit', 'cursor'] as const;
/** Key fields are compared as text; a float or a boolean makes a poor identity. */
const KEY_FIELD_TYPES: readonly FieldType[] = ['string', 'integer', 'enum', 'date'];
/** A filterable string lands in a btree entry; PostgreSQL caps those near 2.7 kB. */
export const FILTERABLE_STRING_MAX = 500;

export const fieldSchema = z
  .strictObject({
    name: z.string().regex(FIELD_NAME, 'must be lowercase letters, digits and underscores, starting with a letter (1-63 chars)'),
    type: z.enum(FIELD_TYPES),
    required: z.boolean().default(false),
    enum_values: z.array(z.string().min(1).max(200)).min(1).max(500).optional(),
    max_length: z.number().int().min(1).max(100_000).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    filterable: z.boolean().default(false),
  })
  .superRefine((f, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if ((RESERVED_FIELD_NAMES as readonly string[]).includes(f.name)) issue('name', `${f.name} is reserved (it is a query parameter)`);
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
  });

export type FieldDefinition = z.infer<typeof fieldSchema>;

/** What an operator writes in the JSON or YAML file given to `objects define`. */
export const definitionInput = z
  .strictObject({
    key: z.string().regex(OBJECT_KEY, 'must be a slug: lowercase letters, digits, _ and -, starting with a letter (1-63 chars)'),
    label: z.string().trim().min(1).max(200),
    read_scope: z.string().regex(OBJECT_READ_SCOPE, 'must be an object read scope: objects:<name>:read'),
    write_scope: z.string().regex(OBJECT_WRITE_SCOPE, 'must be an object write scope: objects:<name>:write').nullable().optional(),
    fields: z.array(fieldSchema).min(1, 'must list at least one field').max(100, 'at most 100 fields'),
    key_field: z.string().nullable().optional(),
  })
  .superRefine((d, ctx) => {
    const seen = new Set<string>();
    d.fields.forEach((f, i) => {
      if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'name'], message: `duplicate field name ${f.name}` });
      seen.add(f.name);
    });
    if (d.key_field === undefined || d.key_field === null) return;
    const keyField = d.fields.find((f) => f.name === d.key_field);
    const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['key_field'], message });
    if (!keyField) issue(`${d.key_field} is not one of the fields`);
    else if (!keyField.required) issue(`${d.key_field} must be a required field`);
    else if (!KEY_FIELD_TYPES.includes(keyField.type)) issue(`${d.key_field} must be of type ${KEY_FIELD_TYPES.join(', ')}`);
  });


export const objectDefinitionSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    read_scope: z.string(),
    write_scope: z.string().nullable(),
    key_field: z.string().nullable(),
    fields: z.array(fieldSchema),
    version: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ObjectDefinition' });

export type ObjectDefinition = z.infer<typeof objectDefinitionSchema>;

export type RowValue = string | number | boolean;
export type ObjectRow = Record<string, RowValue | null>;

export const rowErrorSchema = z.object({ row: z.number().int(), field: z.string().nullable(), message: z.string() });
export type RowError = z.infer<typeof rowErrorSchema>;

export const objectKeyParams = z.strictObject({ key: z.string().min(1).max(100) });

// Rows stay `unknown` here: a row that is not an object is a 422 for that row, like any other invalid row.
export const writeRowsInput = z.strictObject({
  rows: z.array(z.unknown()).min(1, 'send at least one row').max(1000, 'at most 1000 rows per request'),
});
export type WriteRowsInput = z.infer<typeof writeRowsInput>;

export const objectRowSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** What a key learns about an object it can read: enough to query or write it without the operator's file. */
export const readableObjectSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    writable: z.boolean(),
    key_field: z.string().nullable(),
    filterable_fields: z.array(z.string()),
    fields: z.array(fieldSchema),
    row_schema: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'ReadableObject' });
export type ReadableObject = z.infer<typeof readableObjectSchema>;
