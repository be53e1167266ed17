import { z } from 'zod';
import { keyValueOf } from './field-slots.js';
import { FILTERABLE_STRING_MAX, type FieldDefinition, type ObjectRow, type RowError, type RowValue } from './objects.schemas.js';

/** The part of a definition rows are checked against. */
export interface RowShape {
  key: string;
  fields: FieldDefinition[];
  key_field: string | null;
}

const absent = (input: unknown) => input === undefined || input === null;

/** One field's value schema; messages read after the field name (`year: must be a whole number`). */
function fieldValueSchema(f: FieldDefinition): z.ZodType<RowValue, RowValue> {
  const expect = (what: string) => (iss: { input?: unknown }) => (absent(iss.input) ? 'is required' : `must be ${what}`);
  switch (f.type) {
    case 'string': {
      const max = f.max_length ?? (f.filterable ? FILTERABLE_STRING_MAX : undefined);
      const s = z.string({ error: expect('a string') });
      return max === undefined ? s : s.max(max, `must be at most ${max} characters`);
    }
    case 'integer':
    case 'number': {
      let s = f.type === 'integer' ? z.int({ error: expect('a whole number') }) : z.number({ error: expect('a number') });
      if (f.min !== undefined) s = s.min(f.min, `must be at least ${f.min}`);
      if (f.max !== undefined) s = s.max(f.max, `must be at most ${f.max}`);
      return s;
    }
    case 'boolean':
      return z.boolean({ error: expect('true or false') });
    case 'date':
      return z.iso.date({ error: expect('a date as YYYY-MM-DD') });
    case 'datetime':
      // Stored in UTC with milliseconds, so equal instants compare equal as text in the index.
      return z.iso
        .datetime({ offset: true, error: expect('an ISO 8601 date-time with a time zone, e.g. 2026-06-01T12:00:00Z') })
        .transform((v) => new Date(v).toISOString());
    case 'enum':
      return z.enum((f.enum_values ?? []) as [string, ...string[]], { error: expect(`one of: ${(f.enum_values ?? []).join(', ')}`) });
  }
}

/** A strict row schema: every field typed, required ones required, nothing else allowed. */
export function rowSchemaOf(shape: RowShape): z.ZodObject {
  const entries = shape.fields.map((f) => {
    const value = fieldValueSchema(f);
    return [f.name, f.required ? value : value.nullable().optional()] as const;
  });
  return z.strictObject(Object.fromEntries(entries));
}

/** Stored rows hold only the fields that have a value. */
function compact(parsed: Record<string, unknown>): ObjectRow {
  const out: ObjectRow = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (v !== undefined && v !== null) out[k] = v as RowValue;
  }
  return out;
}

function errorsOf(error: z.ZodError, row: number, objectKey: string): RowError[] {
  return error.issues.flatMap((issue): RowError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ row, field: k, message: `is not a field of ${objectKey}` }));
    }
    const field = issue.path[0];
    if (typeof field === 'string') return [{ row, field, message: issue.message }];
    return [{ row, field: null, message: 'must be an object of field values' }];
  });
}

interface CheckedRows {
  rows: ObjectRow[];
  errors: RowError[];
}

/** Validates every row (all errors, not just the first) and normalises the good ones. Row numbers start at 0. */
export function checkRows(shape: RowShape, input: unknown[], schema: z.ZodObject = rowSchemaOf(shape)): CheckedRows {
  const rows: ObjectRow[] = [];
  const errors: RowError[] = [];
  const firstRowOfKey = new Map<string, number>();
  input.forEach((raw, i) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      errors.push(...errorsOf(parsed.error, i, shape.key));
      return;
    }
    const row = compact(parsed.data);
    const key = keyValueOf(row, shape.key_field);
    if (key !== null && shape.key_field !== null) {
      const first = firstRowOfKey.get(key);
      if (first !== undefined) {
        errors.push({ row: i, field: shape.key_field, message: `repeats ${shape.key_field} ${key} of row ${first}` });
        return;
      }
      firstRowOfKey.set(key, i);
    }
    rows.push(row);
  });
  return { rows, errors };
}

/** The wire form of a stored row: every defined field, null where it has no value. */
export function toWireRow(fields: FieldDefinition[], data: ObjectRow): ObjectRow {
  return Object.fromEntries(fields.map((f) => [f.name, data[f.name] ?? null]));
}
