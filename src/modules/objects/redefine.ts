import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { AppError } from '../../platform/core/errors.js';
import type { Db, Tx } from '../../platform/db/schema.js';
import { SlicePacer, type SlicePacing } from '../../platform/db/slice-pacer.js';
import { keyValueOf, type SlotMap, type SlotValues, slotValuesOf } from './field-slots.js';
import type { FieldType, ObjectRow } from './objects.schemas.js';
import * as repo from './objects.repository.js';
import { checkRows, rowSchemaOf, type RowShape } from './row-validation.js';

/** Rows one read of the check takes. */
const CHECK_SLICE = 2000;
/** Rows one rewrite transaction rewrites at most: a few ms of writes on SQLite (docs/decisions.md, "Big jobs in slices"). */
export const REWRITE_SLICE = 100;
/** Rows one rewrite transaction rewrites at least on SQLite, however slow the writes. */
const MIN_REWRITE_SLICE = 10;
/** Enough examples to fix the data; the count says how many more there are. */
const MAX_REPORTED = 20;

/** A redefinition's progress: rows checked so far, or row ids rewritten up to; `writeMs` of a rewrite slice's transaction. */
export interface RedefineProgress {
  phase: 'check' | 'rewrite';
  done: number;
  total: number;
  writeMs?: number;
}
/** Awaited: whatever it does happens between two slices (the CLI prints; a test writes rows in between). */
export type OnRedefineProgress = (progress: RedefineProgress) => void | Promise<void>;

/** The definition rows are checked against and rewritten to. */
export interface NextDefinition extends RowShape {
  slots: SlotMap;
}

/** What the definition was before a redefinition whose rewrite is under way (object_definitions.rewrite_from). */
export interface RewriteFrom {
  key_field: string | null;
  slots: SlotMap;
  types: Record<string, FieldType>;
}

interface RecheckProblem {
  row_id: number;
  key: string | null;
  field: string | null;
  message: string;
}

type Patch = Pick<repo.StoredRow, 'data' | 'key_value'> & SlotValues;
interface RowPatch {
  id: number;
  rev: number | null;
  patch: Patch;
}

/** A stored row in the new definition's form, or why it does not fit (key clashes are the ledger's). */
function converter(next: NextDefinition): (stored: repo.StoredRow) => { stored: ObjectRow; errors: RecheckProblem[]; key: string | null; patch?: Patch } {
  const known = new Set(next.fields.map((f) => f.name));
  // Key clashes are found across slices by the ledger, so each row is checked without a key field.
  const shape = { ...next, key_field: null };
  const schema = rowSchemaOf(shape);
  return (row) => {
    const stored = JSON.parse(row.data) as ObjectRow;
    // A field the new definition drops is dropped from the data, not held against the row.
    const data = Object.fromEntries(Object.entries(stored).filter(([k]) => known.has(k)));
    const { rows, errors } = checkRows(shape, [data], schema);
    const fit = rows[0];
    const problems = errors.map((e) => ({ row_id: Number(row.id), key: null, field: e.field, message: e.message }));
    if (!fit) return { stored, errors: problems, key: null };
    const key = keyValueOf(fit, next.key_field);
    return { stored, errors: [], key, patch: { data: JSON.stringify(fit), key_value: key, ...slotValuesOf(fit, next.slots) } };
  };
}

function differs(stored: repo.StoredRow, patch: Patch): boolean {
  return Object.entries(patch).some(([column, value]) => {
    const current = stored[column as keyof repo.StoredRow];
    return (current === null ? null : typeof value === 'number' ? Number(current) : current) !== value;
  });
}

/**
 * Every existing row judged against a new definition: which do not fit (by row, so a row judged again after a write is
 * judged anew), which key values the rows hold under the new key field, and which rows need their stored form rewritten.
 */
class Verdicts {
  private readonly keys = new Map<string, number>();
  private readonly keyOf = new Map<number, string>();
  private readonly bad = new Map<number, RecheckProblem[]>();
  private readonly rewrite = new Set<number>();
  checked = 0;

  constructor(
    private readonly next: NextDefinition,
    private readonly previousKeyField: string | null,
    private readonly convert = converter(next),
  ) {}

  get needRewrite(): number {
    return this.rewrite.size;
  }

  /** Judges one row (again, if a write changed it since): answers its new form when it fits and must be rewritten. */
  judge(row: repo.StoredRow): RowPatch | undefined {
    const id = Number(row.id);
    this.bad.delete(id);
    this.rewrite.delete(id);
    const held = this.keyOf.get(id);
    if (held !== undefined && this.keys.get(held) === id) this.keys.delete(held);
    this.keyOf.delete(id);
    const { stored, errors, key, patch } = this.convert(row);
    // Named by the key the operator knows: the one in force before this change.
    const knownKey = keyValueOf(stored, this.previousKeyField);
    const clash = key === null ? undefined : this.keys.get(key);
    if (!patch || clash !== undefined) {
      const found = patch ? [{ row_id: id, key: null, field: this.next.key_field, message: `repeats ${this.next.key_field ?? ''} ${key ?? ''} of row ${clash ?? ''}` }] : errors;
      this.bad.set(id, found.map((p) => ({ ...p, key: knownKey })));
      return undefined;
    }
    if (key !== null) {
      this.keys.set(key, id);
      this.keyOf.set(id, key);
    }
    if (!differs(row, patch)) return undefined;
    this.rewrite.add(id);
    return { id, rev: row.rev === null ? null : Number(row.rev), patch };
  }

  /** The refusal when any row does not fit: nothing changed. */
  refusal(): Error | undefined {
    if (this.bad.size === 0) return undefined;
    const ids = [...this.bad.keys()].sort((a, b) => a - b);
    const problems = ids.flatMap((id) => this.bad.get(id) ?? []).slice(0, MAX_REPORTED);
    const sample = problems.slice(0, 3).map((p) => `row ${p.row_id}${p.field ? ` ${p.field}` : ''}: ${p.message}`).join('; ');
    return new AppError('rows_do_not_fit', `cannot redefine ${this.next.key}: ${this.bad.size} of ${this.checked} existing rows do not fit the new definition (${sample}); nothing changed`, problems);
  }
}

export interface Checked {
  /** The last row id reserved when the check began: rows written since have a higher `rev`. */
  mark: number;
  verdicts: Verdicts;
}

/**
 * Phase 1, no transaction held: every row written before the check began, judged in read slices. Rows written meanwhile
 * are judged again by `recheckSince` in the short transaction that switches the definition.
 */
export async function checkExisting(
  db: Db,
  orgId: string,
  objectId: string,
  next: NextDefinition,
  previousKeyField: string | null,
  onProgress?: OnRedefineProgress,
): Promise<Checked> {
  const mark = await repo.lastRowId(db, orgId, objectId);
  const total = onProgress ? await repo.countRows(db, orgId, objectId) : 0;
  const verdicts = new Verdicts(next, previousKeyField);
  for (let after = 0; ; ) {
    const slice = await repo.scanRows(db, orgId, objectId, after, CHECK_SLICE, mark);
    const last = slice[slice.length - 1];
    if (!last) break;
    after = Number(last.id);
    for (const row of slice) {
      if (Number(row.rev ?? 0) > mark) continue;
      verdicts.checked += 1;
      verdicts.judge(row);
    }
    await onProgress?.({ phase: 'check', done: verdicts.checked, total });
    await yieldToOthers();
  }
  return { mark, verdicts };
}

/** Phase 2, in the switching transaction: the rows written since the check began, judged; their new forms. */
export async function recheckSince(tx: Tx, orgId: string, objectId: string, checked: Checked): Promise<RowPatch[]> {
  const patches: RowPatch[] = [];
  for (const row of await repo.rowsWrittenSince(tx, orgId, objectId, checked.mark)) {
    checked.verdicts.checked += 1;
    const patch = checked.verdicts.judge(row);
    if (patch) patches.push(patch);
  }
  const refused = checked.verdicts.refusal();
  if (refused) throw refused;
  return patches;
}

/**
 * Writes rows' new forms in `tx`. Under a new key field, rows not rewritten yet (ids above `afterId`) that hold one of
 * the new key values as their old one let go of it first; the check proved the new values unique, so nothing else can.
 */
export async function applyPatches(tx: Tx, orgId: string, objectId: string, afterId: number, patches: RowPatch[], keyChanged: boolean): Promise<number> {
  if (keyChanged) {
    const keys = patches.map((p) => p.patch.key_value).filter((k): k is string => k !== null);
    await repo.releaseKeys(tx, orgId, objectId, afterId, keys);
  }
  let written = 0;
  // A row a write replaced since it was read is left as written: the write was checked against the new definition.
  for (const p of patches) if (await repo.rewriteRow(tx, orgId, objectId, p.id, p.rev, p.patch)) written += 1;
  return written;
}

class RewriteMovedOn extends Error {}

/**
 * Phase 3: the rows of a switched definition rewritten to its form, a slice per transaction, the progress
 * (object_definitions.rewrite_after) moved in the same transaction, so a run killed midway resumes after the last slice
 * written and no row is rewritten twice. Runs alongside another run of it (each slice's move is conditional); answers
 * how many rows this run rewrote.
 */
export async function finishRewrite(db: Db, orgId: string, key: string, pacing: SlicePacing, onProgress?: OnRedefineProgress): Promise<number> {
  let rewritten = 0;
  const pacer = new SlicePacer(pacing, REWRITE_SLICE, MIN_REWRITE_SLICE);
  let convert: ReturnType<typeof converter> | undefined;
  for (;;) {
    const def = await repo.findDefinition(db, orgId, key);
    if (!def || def.rewrite_after === null || def.rewrite_through === null || def.rewrite_from === null) return rewritten;
    const after = Number(def.rewrite_after);
    const through = Number(def.rewrite_through);
    const from = JSON.parse(def.rewrite_from) as RewriteFrom;
    const next: NextDefinition = { key: def.key, fields: JSON.parse(def.fields) as NextDefinition['fields'], key_field: def.key_field, slots: JSON.parse(def.slots) as SlotMap };
    convert ??= converter(next);
    const size = pacer.size;
    const slice = await repo.scanRows(db, orgId, def.id, after, size, through);
    const patches: RowPatch[] = [];
    // Rows written since the switch (a higher rev) were written in the new form already.
    for (const row of slice) {
      if (Number(row.rev ?? 0) > through) continue;
      const { patch } = convert(row);
      // Every row up to rewrite_through was judged to fit before the switch, and none was written under another definition since.
      if (!patch) throw new Error(`row ${row.id} of object ${key} does not fit the definition it was checked against`);
      if (differs(row, patch)) patches.push({ id: Number(row.id), rev: row.rev === null ? null : Number(row.rev), patch });
    }
    const end = slice.length < size ? null : Number(slice[slice.length - 1]?.id);
    const started = performance.now();
    const written = await db
      .transaction()
      .execute(async (tx) => {
        const n = await applyPatches(tx, orgId, def.id, after, patches, from.key_field !== def.key_field);
        if (!(await repo.advanceRewrite(tx, orgId, def.id, after, end))) throw new RewriteMovedOn();
        return n;
      })
      .catch((err: unknown) => {
        // Another run wrote this slice first: this one's writes are rolled back; go on from where that one is.
        if (err instanceof RewriteMovedOn) return 0;
        throw err;
      });
    rewritten += written;
    const writeMs = performance.now() - started;
    await onProgress?.({ phase: 'rewrite', done: end ?? through, total: through, writeMs });
    await pacer.next(writeMs);
  }
}

/** During a rewrite, the fields whose filter column (slot, key, or the form of its values) rows not rewritten yet hold differently. */
export function fieldsBeingRewritten(def: repo.DefinitionRow): Set<string> | undefined {
  if (def.rewrite_after === null || def.rewrite_from === null) return undefined;
  const from = JSON.parse(def.rewrite_from) as RewriteFrom;
  const slots = JSON.parse(def.slots) as SlotMap;
  const fields = JSON.parse(def.fields) as NextDefinition['fields'];
  const changed = new Set<string>();
  for (const f of fields) {
    const isKey = f.name === def.key_field;
    if (isKey ? from.key_field !== def.key_field : slots[f.name] !== from.slots[f.name] || from.types[f.name] !== f.type) changed.add(f.name);
  }
  return changed;
}
