import { z } from 'zod';
import { invalidInput } from '../../platform/core/errors.js';
import { type IssueDetail, issuesText } from '../../platform/core/issues.js';
import { isTextSlot, type NumberSlot, type SlotMap, type TextSlot } from './field-slots.js';
import type { FieldDefinition } from './objects.schemas.js';

export interface RowFilters {
  text: { column: TextSlot | 'key_value'; value: string }[];
  number: { column: NumberSlot; value: number }[];
}

export interface FilterShape {
  key: string;
  fields: FieldDefinition[];
  key_field: string | null;
  slots: SlotMap;
}

const INTEGER = /^[+-]?\d{1,16}$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEAN: Record<string, number> = { true: 1, false: 0, '1': 1, '0': 0 };
const isoDate = z.iso.date();
const isoDateTime = z.iso.datetime({ offset: true });

/** A query-string value as the field's type stores it in its slot; a message when it cannot be one. */
function coerce(f: FieldDefinition, raw: string): { value: string | number } | { message: string } {
  switch (f.type) {
    case 'string':
      return { value: raw };
    case 'integer': {
      const n = Number(raw);
      return INTEGER.test(raw) && Number.isSafeInteger(n) ? { value: n } : { message: 'must be a whole number' };
    }
    case 'number': {
      const n = Number(raw);
      return DECIMAL.test(raw) && Number.isFinite(n) ? { value: n } : { message: 'must be a number' };
    }
    case 'boolean': {
      const b = BOOLEAN[raw.toLowerCase()];
      return b === undefined ? { message: 'must be true or false' } : { value: b };
    }
    case 'date':
      return isoDate.safeParse(raw).success ? { value: raw } : { message: 'must be a date as YYYY-MM-DD' };
    case 'datetime':
      return isoDateTime.safeParse(raw).success
        ? { value: new Date(raw).toISOString() }
        : { message: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-06-01T12:00:00Z' };
    case 'enum':
      return f.enum_values?.includes(raw) ? { value: raw } : { message: `must be one of: ${(f.enum_values ?? []).join(', ')}` };
  }
}

/**
 * Turns `?field=value` pairs into typed equality filters on indexed columns (ANDed). Unknown, non-filterable,
 * repeated or ill-typed filters are a 400 listing every problem.
 */
export function parseFilters(shape: FilterShape, params: Record<string, string | string[]>): RowFilters {
  const filters: RowFilters = { text: [], number: [] };
  const problems: IssueDetail[] = [];
  const filterable = shape.fields.filter((f) => f.name === shape.key_field || shape.slots[f.name]).map((f) => f.name);
  for (const [name, given] of Object.entries(params)) {
    const field = shape.fields.find((f) => f.name === name);
    if (!field) {
      problems.push({ path: name, message: `is not a field of ${shape.key} (filterable: ${filterable.join(', ') || 'none'})` });
      continue;
    }
    const slot = shape.slots[name];
    if (name !== shape.key_field && !slot) {
      problems.push({ path: name, message: `is not filterable (filterable: ${filterable.join(', ') || 'none'})` });
      continue;
    }
    if (Array.isArray(given)) {
      problems.push({ path: name, message: 'is given more than once; filters AND together, one value per field' });
      continue;
    }
    const coerced = coerce(field, given);
    if ('message' in coerced) {
      problems.push({ path: name, message: coerced.message });
    } else if (name === shape.key_field) {
      filters.text.push({ column: 'key_value', value: String(coerced.value) });
    } else if (slot && isTextSlot(slot)) {
      filters.text.push({ column: slot, value: String(coerced.value) });
    } else if (slot) {
      filters.number.push({ column: slot, value: Number(coerced.value) });
    }
  }
  if (problems.length > 0) {
    throw invalidInput(`invalid filter: ${issuesText(problems)}`, problems);
  }
  return filters;
}
