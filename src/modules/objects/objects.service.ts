import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/scopes.js';
import { hasScope, requireScope } from '../../platform/auth/scopes.js';
import type { Clock } from '../../platform/core/clock.js';
import type { Db, Executor, Tx } from '../../platform/db/schema.js';
import type { SlicePacing } from '../../platform/db/slice-pacer.js';
import { AppError, invalidInput, notFound, paramOf } from '../../platform/core/errors.js';
import { invalidFromIssues } from '../../platform/core/issues.js';
import { decodeCursor, page, sincePage, sinceWindowOf } from '../../platform/core/pagination.js';
import { newId } from '../../platform/core/ids.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import { assignSlots, keyValueOf, type SlotMap, slotValuesOf } from './field-slots.js';
import { parseFilters } from './filters.js';
import {
  definitionInput,
  type FieldDefinition,
  type ObjectDefinition,
  type ObjectRow,
  type ReadableObject,
  type RowError,
  type WriteRowsInput,
} from './objects.schemas.js';
import * as repo from './objects.repository.js';
import { applyPatches, checkExisting, fieldsBeingRewritten, finishRewrite, type OnRedefineProgress, recheckSince, type RewriteFrom } from './redefine.js';
import { checkRows, rowSchemaOf, toWireRow } from './row-validation.js';

/** A stored definition, parsed once per request. */
interface LoadedObject {
  id: string;
  view: ObjectDefinition;
  key: string;
  fields: FieldDefinition[];
  key_field: string | null;
  slots: SlotMap;
  /** While a redefinition rewrites the rows: the fields whose filters wait for it; with `keyChanged`, writes wait too. */
  rewriting?: { fields: Set<string>; keyChanged: boolean };
}

interface DefineResult {
  definition: ObjectDefinition;
  created: boolean;
  rows_checked: number;
  rows_rewritten: number;
  /** Rows of an earlier redefinition cut short (its process died) that this run rewrote before its own. */
  rows_resumed: number;
}

// Strict: a cursor of the sync order (which also carries `i`) is refused here rather than read as an id.
const cursorSchema = z.strictObject({ i: z.number().int().nonnegative() });

function load(row: repo.DefinitionRow): LoadedObject {
  const fields = JSON.parse(row.fields) as FieldDefinition[];
  const rewritingFields = fieldsBeingRewritten(row);
  const from = row.rewrite_from === null ? undefined : (JSON.parse(row.rewrite_from) as RewriteFrom);
  return {
    ...(rewritingFields ? { rewriting: { fields: rewritingFields, keyChanged: from?.key_field !== row.key_field } } : {}),
    id: row.id,
    key: row.key,
    fields,
    key_field: row.key_field,
    slots: JSON.parse(row.slots) as SlotMap,
    view: {
      key: row.key,
      label: row.label,
      read_scope: row.read_scope,
      write_scope: row.write_scope,
      key_field: row.key_field,
      fields,
      version: Number(row.version),
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
  };
}

/** Operator-defined objects: definitions (CLI) and their rows (REST and MCP, per-object scopes). */
export class ObjectsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
    /** How the rewrite of a redefinition sizes its slices and waits between them. */
    private readonly pacing: SlicePacing,
  ) {}

  /**
   * Creates or replaces a definition. A replacement that changes the rows' form runs as a job in slices (redefine.ts): the
   * rows are checked in read slices with no transaction held; one short transaction re-checks the rows written meanwhile
   * and switches the definition (any row that does not fit refuses the change, and nothing changed); then the rows are
   * rewritten a slice per transaction. A redefinition cut short is finished first, by whichever define runs next.
   */
  async define(orgSlug: string, raw: unknown, onProgress?: OnRedefineProgress): Promise<DefineResult> {
    const org = await this.orgs.bySlug(orgSlug);
    const parsed = definitionInput.safeParse(raw);
    if (!parsed.success) throw invalidFromIssues(parsed.error.issues, 'object definition');
    const input = parsed.data;
    const keyField = input.key_field ?? null;
    const at = this.clock.now().toISOString();
    let existing = await repo.findDefinition(this.db, org.id, input.key);
    const slotsOf = (def: repo.DefinitionRow | undefined) => assignSlots(input.fields, keyField, def ? (JSON.parse(def.slots) as SlotMap) : {});
    const stored = (slots: SlotMap) => ({
      label: input.label,
      read_scope: input.read_scope,
      write_scope: input.write_scope ?? null,
      key_field: keyField,
      fields: JSON.stringify(input.fields),
      slots: JSON.stringify(slots),
      updated_at: at,
    });

    if (!existing) {
      const row: repo.DefinitionRow = {
        id: newId('obj', this.clock.now()),
        org_id: org.id,
        key: input.key,
        ...stored(slotsOf(undefined)),
        version: 1,
        last_row_id: 0,
        created_at: at,
        rewrite_after: null,
        rewrite_through: null,
        rewrite_from: null,
      };
      const inserted = await this.db.transaction().execute((tx) => repo.insertDefinition(tx, row));
      if (!inserted) throw new AppError('concurrent_change', `object ${input.key} was defined concurrently; run the command again`);
      return { definition: load(row).view, created: true, rows_checked: 0, rows_rewritten: 0, rows_resumed: 0 };
    }

    let resumed = 0;
    if (existing.rewrite_after !== null) {
      resumed = await finishRewrite(this.db, org.id, input.key, this.pacing, onProgress);
      existing = (await repo.findDefinition(this.db, org.id, input.key)) ?? existing;
    }
    const previous = existing;
    const slots = slotsOf(previous);
    const patch = { ...stored(slots), version: Number(previous.version) + 1 };
    const next = { key: input.key, fields: input.fields, key_field: keyField, slots };
    const rowsAffected = previous.fields !== patch.fields || previous.key_field !== keyField || previous.slots !== patch.slots;
    const checked = rowsAffected ? await checkExisting(this.db, org.id, previous.id, next, previous.key_field, onProgress) : undefined;
    const refused = checked?.verdicts.refusal();
    if (refused) throw refused;
    const sliced = (checked?.verdicts.needRewrite ?? 0) > 0;
    const from: RewriteFrom = {
      key_field: previous.key_field,
      slots: JSON.parse(previous.slots) as SlotMap,
      types: Object.fromEntries((JSON.parse(previous.fields) as FieldDefinition[]).map((f) => [f.name, f.type])),
    };
    const inline = await this.db.transaction().execute(async (tx) => {
      const switched = await repo.switchDefinition(tx, org.id, previous.id, Number(previous.version), patch, sliced ? JSON.stringify(from) : null);
      if (switched === undefined) throw new AppError('concurrent_change', `object ${input.key} was redefined concurrently; run the command again`);
      if (!checked) return 0;
      const patches = await recheckSince(tx, org.id, previous.id, checked);
      // Without a rewrite in slices, the few rows written during the check that need their new form get it here.
      return sliced ? 0 : applyPatches(tx, org.id, previous.id, 0, patches, previous.key_field !== keyField);
    });
    const rewritten = inline + (sliced ? await finishRewrite(this.db, org.id, input.key, this.pacing, onProgress) : 0);
    const definition = load({ ...previous, ...patch, rewrite_after: null, rewrite_through: null, rewrite_from: null }).view;
    return { definition, created: false, rows_checked: checked?.verdicts.checked ?? 0, rows_rewritten: rewritten, rows_resumed: resumed };
  }

  async listDefinitions(orgSlug: string): Promise<ObjectDefinition[]> {
    const org = await this.orgs.bySlug(orgSlug);
    return (await repo.listDefinitions(this.db, org.id)).map((r) => load(r).view);
  }

  async showDefinition(orgSlug: string, key: string): Promise<ObjectDefinition & { row_count: number }> {
    const org = await this.orgs.bySlug(orgSlug);
    const row = await repo.findDefinition(this.db, org.id, key);
    if (!row) throw notFound(`object ${key} in org ${orgSlug}`);
    return { ...load(row).view, row_count: await repo.countRows(this.db, org.id, row.id) };
  }

  /**
   * GET /v1/objects/:object: equality filters on filterable fields (ANDed), id order, cursor paging; with updated_since,
   * the rows written since then in updated_at order (decisions.md). Takes the caller's grants: each object names its own
   * read scope, so the scope is checked here, per object, after the 404.
   */
  async query(
    db: Executor,
    auth: AuthContext,
    key: string,
    filterParams: Record<string, string | string[]>,
    paging: { limit: number; cursor?: string; updated_since?: string },
  ): Promise<{ rows: ObjectRow[]; next_cursor: string | null; next_updated_since?: string }> {
    const object = await this.object(db, auth.orgId, key);
    requireScope(auth, object.view.read_scope);
    const waiting = Object.keys(filterParams).filter((f) => object.rewriting?.fields.has(f));
    if (waiting.length > 0) throw beingRewritten(key, `filters on ${waiting.join(', ')} answer`);
    const filters = parseFilters(object, filterParams);
    const since = sinceWindowOf(paging);
    if (since !== undefined) {
      const legacy = object.fields.find((f) => f.name === 'updated_since');
      if (legacy) throw reservedFieldClash(key, legacy.name);
      const rows = await repo.rowsQuery(db, auth.orgId, object.id, filters, { since }, paging.limit + 1).execute();
      const { items, next_cursor } = sincePage(rows, paging.limit, since, (r) => ({ at: r.updated_at, id: Number(r.id) }));
      // Where the next sync starts: the last row's time (inclusive, so re-reading that instant is harmless), or the same bound.
      const next_updated_since = items.at(-1)?.updated_at ?? since.since;
      return { rows: items.map((r) => toWireRow(object.fields, JSON.parse(r.data) as ObjectRow)), next_cursor, next_updated_since };
    }
    const after = decodeCursor(paging.cursor, cursorSchema);
    const rows = await repo.rowsQuery(db, auth.orgId, object.id, filters, after === undefined ? {} : { afterId: after.i }, paging.limit + 1).execute();
    const { items, next_cursor } = page(rows, paging.limit, (r) => ({ i: Number(r.id) }));
    return { rows: items.map((r) => toWireRow(object.fields, JSON.parse(r.data) as ObjectRow)), next_cursor };
  }

  /**
   * POST /v1/objects/:object: every row valid or nothing written; rows upsert on the key field when there is one. Takes
   * the caller's grants for the object's own write scope, checked here after the 404.
   */
  async write(tx: Tx, auth: AuthContext, key: string, input: WriteRowsInput): Promise<{ written: number; rows: ObjectRow[] }> {
    const object = writable(auth, await this.object(tx, auth.orgId, key), key);
    // Rows not rewritten yet still hold their old key values: an upsert on the new key field could not find them.
    if (object.rewriting?.keyChanged) throw beingRewritten(key, 'writes are taken');
    const { rows, errors } = checkRows(object, input.rows);
    if (errors.length > 0) throw rowsRefused(errors, input.rows.length);

    const at = this.clock.now().toISOString();
    const reserved = await repo.reserveRowIds(tx, auth.orgId, object.id, rows.length);
    if (!reserved || reserved.version !== object.view.version) {
      throw new AppError('concurrent_change', `object ${key} was redefined while writing; nothing was written, send the rows again`);
    }
    const first = reserved.last_row_id - rows.length + 1;
    const stored = rows.map((row, i): repo.StoredRow => ({
      object_id: object.id,
      id: first + i,
      rev: first + i,
      org_id: auth.orgId,
      key_value: keyValueOf(row, object.key_field),
      data: JSON.stringify(row),
      created_at: at,
      updated_at: at,
      ...slotValuesOf(row, object.slots),
    }));
    await repo.writeRows(tx, stored, object.key_field !== null);
    return { written: rows.length, rows: rows.map((r) => toWireRow(object.fields, r)) };
  }

  /** GET /v1/objects: the objects this key may read, each with the JSON Schema its rows follow. */
  async readable(db: Executor, auth: AuthContext): Promise<ReadableObject[]> {
    const all = (await repo.listDefinitions(db, auth.orgId)).map(load);
    return all
      .filter((o) => hasScope(auth, o.view.read_scope))
      .map((o) => ({
        key: o.key,
        label: o.view.label,
        writable: o.view.write_scope !== null && hasScope(auth, o.view.write_scope),
        key_field: o.key_field,
        filterable_fields: o.fields.filter((f) => f.name === o.key_field || o.slots[f.name]).map((f) => f.name),
        fields: o.fields,
        row_schema: z.toJSONSchema(rowSchemaOf(o), { io: 'input', unrepresentable: 'any' }),
      }));
  }

  /**
   * What write() refuses before it reads the rows (404, 405 read-only, 403 without the object's write scope), for the
   * REST door to answer before a request's body is read.
   */
  async checkWritable(auth: AuthContext, key: string): Promise<void> {
    writable(auth, await this.object(this.db, auth.orgId, key), key);
  }

  /** The org's object by key; unknown (or another org's) is a 404 before any scope is checked. */
  private async object(db: Executor, orgId: string, key: string): Promise<LoadedObject> {
    const row = await repo.findDefinition(db, orgId, key);
    if (!row) throw notFound(`object ${key}`);
    return load(row);
  }
}

/** The object, if it takes writes and the caller holds its write scope: 405 read-only, else 403. */
function writable(auth: AuthContext, object: LoadedObject, key: string): LoadedObject {
  const writeScope = object.view.write_scope;
  if (writeScope === null) throw new AppError('method_not_allowed', `object ${key} is read-only`, undefined, { allow: 'GET' });
  requireScope(auth, writeScope);
  return object;
}

/** A redefinition is rewriting the object's rows; what waits for it is taken again once it is done. */
function beingRewritten(key: string, what: string): AppError {
  return new AppError('concurrent_change', `object ${key} is being redefined: its rows are being rewritten, and ${what} once that is done; try again shortly`);
}

/**
 * An object defined before `updated_since` was reserved, with a field of that name: the parameter could mean either, so
 * it means neither on that object until the operator renames the field (decisions.md); its rows still read and write.
 */
function reservedFieldClash(key: string, field: string): AppError {
  return invalidInput(
    `updated_since cannot be used on object ${key}: it has a field named ${field}, defined before that name became the sync parameter; ` +
      `the operator must rename the field (objects define) before ${key} can be synced or filtered by it`,
    undefined,
    'updated_since',
  );
}

/** The message lists the first problems too: an MCP client sees the message, not `details`. */
function rowsRefused(errors: RowError[], total: number): AppError {
  const bad = new Set(errors.map((e) => e.row)).size;
  const shown = errors.slice(0, 10).map((e) => `row ${e.row}${e.field ? ` ${e.field}` : ''}: ${e.message}`);
  const more = errors.length > shown.length ? `; ${errors.length - shown.length} more in details` : '';
  const first = errors[0];
  const param = first === undefined ? 'rows' : paramOf(['rows', first.row, ...(first.field === null ? [] : [first.field])]);
  return new AppError('row_invalid', `${bad} of ${total} rows are invalid, nothing was written: ${shown.join('; ')}${more}`, errors, undefined, param);
}
