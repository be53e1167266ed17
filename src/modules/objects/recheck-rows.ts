import type { Tx } from '../../platform/db/schema.js';
import { conflict } from '../../platform/core/errors.js';
import { keyValueOf, type SlotMap, slotValuesOf } from './field-slots.js';
import type { ObjectRow } from './objects.schemas.js';
import * as repo from './objects.repository.js';
import { checkRows, rowSchemaOf, type RowShape } from './row-validation.js';

const BATCH = 1000;
/** Enough examples to fix the data; the count says how many more there are. */
const MAX_REPORTED = 20;

interface RecheckProblem {
  row_id: number;
  key: string | null;
  field: string | null;
  message: string;
}

/**
 * Checks every existing row against a new definition inside the redefinition's transaction and rewrites the rows whose
 * stored form changes (dropped fields, new slots, a new key field). Any row that does not fit refuses the whole change.
 */
export async function recheckRows(
  tx: Tx,
  orgId: string,
  objectId: string,
  next: RowShape & { slots: SlotMap },
  previousKeyField: string | null,
): Promise<{ checked: number; rewritten: number }> {
  const known = new Set(next.fields.map((f) => f.name));
  // Key clashes are found across batches below, so the per-batch check runs without a key field.
  const shape = { ...next, key_field: null };
  const schema = rowSchemaOf(shape);
  const keyChanged = previousKeyField !== next.key_field;
  if (keyChanged) await repo.clearKeyValues(tx, orgId, objectId);
  const seenKeys = new Map<string, number>();
  const problems: RecheckProblem[] = [];
  let bad = 0;
  let checked = 0;
  let rewritten = 0;
  let after = 0;
  for (;;) {
    const batch = await repo.scanRows(tx, orgId, objectId, after, BATCH);
    if (batch.length === 0) break;
    after = Number(batch[batch.length - 1]?.id ?? after);
    for (const stored of batch) {
      checked++;
      const storedData = JSON.parse(stored.data) as ObjectRow;
      // A field the new definition drops is dropped from the data, not held against the row.
      const data = Object.fromEntries(Object.entries(storedData).filter(([k]) => known.has(k)));
      const { rows, errors } = checkRows(shape, [data], schema);
      const row = rows[0];
      const key = row ? keyValueOf(row, next.key_field) : null;
      const clash = key === null ? undefined : seenKeys.get(key);
      if (!row || clash !== undefined) {
        bad++;
        const found = row
          ? [{ field: next.key_field, message: `repeats ${next.key_field ?? ''} ${key ?? ''} of row ${clash ?? ''}` }]
          : errors.map((e) => ({ field: e.field, message: e.message }));
        // Named by the key the operator knows: the one in force before this change.
        const knownKey = keyValueOf(storedData, previousKeyField);
        for (const p of found) if (problems.length < MAX_REPORTED) problems.push({ row_id: Number(stored.id), key: knownKey, ...p });
        continue;
      }
      if (key !== null) seenKeys.set(key, Number(stored.id));
      const patch = { data: JSON.stringify(row), key_value: key, ...slotValuesOf(row, next.slots) };
      if (keyChanged || differs(stored, patch)) {
        await repo.rewriteRow(tx, orgId, objectId, Number(stored.id), patch);
        rewritten++;
      }
    }
  }
  if (bad > 0) {
    const sample = problems.slice(0, 3).map((p) => `row ${p.row_id}${p.field ? ` ${p.field}` : ''}: ${p.message}`).join('; ');
    throw conflict(`cannot redefine ${next.key}: ${bad} of ${checked} existing rows do not fit the new definition (${sample}); nothing changed`, problems);
  }
  return { checked, rewritten };
}

function differs(stored: repo.StoredRow, patch: Record<string, string | number | null>): boolean {
  return Object.entries(patch).some(([column, value]) => {
    const current = stored[column as keyof repo.StoredRow];
    return (current === null ? null : typeof value === 'number' ? Number(current) : current) !== value;
  });
}
