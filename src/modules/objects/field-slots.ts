import { invalidInput } from '../../platform/core/errors.js';
import type { FieldDefinition, FieldType, ObjectRow, RowValue } from './objects.schemas.js';

/**
 * Filterable fields are copied into typed, indexed slot columns of object_rows (see docs/decisions.md):
 * text-like values (string, enum, date, datetime) into s1..s8, numeric ones (integer, number, boolean as 0/1) into n1..n8.
 */
export const TEXT_SLOTS = ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8'] as const;
export const NUMBER_SLOTS = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8'] as const;
export type TextSlot = (typeof TEXT_SLOTS)[number];
export type NumberSlot = (typeof NUMBER_SLOTS)[number];
type Slot = TextSlot | NumberSlot;
export type SlotMap = Record<string, Slot>;
export type SlotValues = { [K in TextSlot]: string | null } & { [K in NumberSlot]: number | null };

function isTextType(type: FieldType): boolean {
  return type === 'string' || type === 'enum' || type === 'date' || type === 'datetime';
}

export function isTextSlot(slot: Slot): slot is TextSlot {
  return slot.startsWith('s');
}

/**
 * Gives every filterable field (but the key field, which has its own indexed column) a slot. A field keeps its slot
 * across redefinitions while its kind stays the same, so unchanged fields need no rewrite.
 */
export function assignSlots(fields: FieldDefinition[], keyField: string | null, previous: SlotMap): SlotMap {
  const wanted = fields.filter((f) => f.filterable && f.name !== keyField);
  const out: SlotMap = {};
  const taken = new Set<Slot>();
  for (const f of wanted) {
    const prev = previous[f.name];
    if (prev && isTextSlot(prev) === isTextType(f.type)) {
      out[f.name] = prev;
      taken.add(prev);
    }
  }
  for (const f of wanted) {
    if (out[f.name]) continue;
    const pool: readonly Slot[] = isTextType(f.type) ? TEXT_SLOTS : NUMBER_SLOTS;
    const free = pool.find((s) => !taken.has(s));
    if (!free) {
      const kind = isTextType(f.type) ? 'string, enum, date and datetime' : 'integer, number and boolean';
      throw invalidInput(`invalid object definition: at most ${pool.length} filterable ${kind} fields (the key field does not count)`);
    }
    out[f.name] = free;
    taken.add(free);
  }
  return out;
}

/** The value a slot column holds for a field value: booleans as 0/1, everything else as is. */
function slotValue(value: RowValue): string | number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/** Every slot column for one row: used slots carry the field's value, the rest are null. */
export function slotValuesOf(row: ObjectRow, slots: SlotMap): SlotValues {
  const out = Object.fromEntries([...TEXT_SLOTS, ...NUMBER_SLOTS].map((s) => [s, null])) as SlotValues;
  for (const [field, slot] of Object.entries(slots)) {
    const value = row[field];
    if (value === undefined || value === null) continue;
    const v = slotValue(value);
    if (isTextSlot(slot)) out[slot] = String(v);
    else out[slot] = Number(v);
  }
  return out;
}

/** The key field's value as the text of the unique (object_id, key_value) index. */
export function keyValueOf(row: ObjectRow, keyField: string | null): string | null {
  if (keyField === null) return null;
  const value = row[keyField];
  return value === undefined || value === null ? null : String(value);
}
