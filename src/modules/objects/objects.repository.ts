import { type RawBuilder, sql } from 'kysely';
import type { SinceWindow } from '../../platform/core/pagination.js';
import type { Executor, Tx } from '../../platform/db/schema.js';
import { inSinceOrder } from '../../platform/db/since-order.js';
import type { ObjectDefinitionsTable, ObjectRowsTable } from './objects.tables.js';
import { NUMBER_SLOTS, type NumberSlot, type SlotValues, TEXT_SLOTS, type TextSlot } from './field-slots.js';
import type { RowFilters } from './filters.js';

export type DefinitionRow = ObjectDefinitionsTable;
export type StoredRow = ObjectRowsTable;

/** Rows per INSERT: 23 columns each stays well under both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500;

export async function findDefinition(db: Executor, orgId: string, key: string): Promise<DefinitionRow | undefined> {
  return db.selectFrom('object_definitions').selectAll().where('org_id', '=', orgId).where('key', '=', key).executeTakeFirst();
}

export async function listDefinitions(db: Executor, orgId: string): Promise<DefinitionRow[]> {
  return db.selectFrom('object_definitions').selectAll().where('org_id', '=', orgId).orderBy('key').execute();
}

export async function insertDefinition(tx: Tx, row: DefinitionRow): Promise<boolean> {
  const result = await tx
    .insertInto('object_definitions')
    .values(row)
    .onConflict((oc) => oc.columns(['org_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** What a redefinition changes of the definition row (the rewrite state is set by switchDefinition). */
export type DefinitionPatch = Omit<DefinitionRow, 'id' | 'org_id' | 'key' | 'last_row_id' | 'created_at' | 'rewrite_after' | 'rewrite_through' | 'rewrite_from'>;

/**
 * Bumps the version only if nobody else did first and, with `rewriteFrom`, marks the rows up to the last id reserved as
 * to be rewritten (see redefine.ts). On PostgreSQL the row stays locked until commit, which holds back writers (they
 * reserve row ids on the same row) for this short transaction. Answers the last row id reserved, or undefined.
 */
export async function switchDefinition(
  tx: Tx,
  orgId: string,
  id: string,
  expectedVersion: number,
  patch: DefinitionPatch,
  rewriteFrom: string | null,
): Promise<number | undefined> {
  const row = await tx
    .updateTable('object_definitions')
    .set((eb) => ({
      ...patch,
      rewrite_after: rewriteFrom === null ? null : 0,
      rewrite_through: rewriteFrom === null ? null : eb.ref('last_row_id'),
      rewrite_from: rewriteFrom,
    }))
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('version', '=', expectedVersion)
    .returning('last_row_id')
    .executeTakeFirst();
  return row && Number(row.last_row_id);
}

/** Reserves `count` row ids and returns the last one with the definition version the write must have been checked against. */
export async function reserveRowIds(
  tx: Tx,
  orgId: string,
  objectId: string,
  count: number,
): Promise<{ last_row_id: number; version: number } | undefined> {
  const row = await tx
    .updateTable('object_definitions')
    .set((eb) => ({ last_row_id: eb('last_row_id', '+', count) }))
    .where('org_id', '=', orgId)
    .where('id', '=', objectId)
    .returning(['last_row_id', 'version'])
    .executeTakeFirst();
  return row && { last_row_id: Number(row.last_row_id), version: Number(row.version) };
}

/** One page of rows in id order, or with `since` in updated_at order; equality filters on indexed columns, ANDed. */
export function rowsQuery(
  db: Executor,
  orgId: string,
  objectId: string,
  filters: RowFilters,
  order: { afterId?: number } | { since: SinceWindow },
  limit: number,
) {
  let query = db
    .selectFrom('object_rows')
    .select(['id', 'data', 'updated_at'])
    .where('org_id', '=', orgId)
    .where('object_id', '=', objectId);
  for (const f of filters.text) query = query.where(f.column, '=', f.value);
  for (const f of filters.number) query = query.where(f.column, '=', f.value);
  if ('since' in order) return inSinceOrder(query, order.since, 'id').limit(limit);
  if (order.afterId !== undefined) query = query.where('id', '>', order.afterId);
  return query.orderBy('id').limit(limit);
}

type ExcludedSlots = { [K in TextSlot]: RawBuilder<string | null> } & { [K in NumberSlot]: RawBuilder<number | null> };

/** `slot = excluded.slot` for every slot column: an upsert replaces the row's typed copies with the new ones. */
function excludedSlots(): ExcludedSlots {
  return Object.fromEntries([...TEXT_SLOTS, ...NUMBER_SLOTS].map((slot) => [slot, sql.ref(`excluded.${slot}`)])) as ExcludedSlots;
}

/** Inserts rows; with `upsert`, a row whose key_value exists replaces the stored data (keeping its id and created_at). */
export async function writeRows(tx: Tx, rows: StoredRow[], upsert: boolean): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const insert = tx.insertInto('object_rows').values(chunk);
    if (!upsert) {
      await insert.execute();
      continue;
    }
    await insert
      .onConflict((oc) =>
        oc.columns(['object_id', 'key_value']).doUpdateSet((eb) => ({
          data: eb.ref('excluded.data'),
          updated_at: eb.ref('excluded.updated_at'),
          rev: eb.ref('excluded.rev'),
          ...excludedSlots(),
        })),
      )
      .execute();
  }
}

export async function countRows(db: Executor, orgId: string, objectId: string): Promise<number> {
  const row = await db
    .selectFrom('object_rows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('object_id', '=', objectId)
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Existing rows in id order after `afterId` (up to `throughId`), a slice at a time, for a redefinition. */
export async function scanRows(db: Executor, orgId: string, objectId: string, afterId: number, limit: number, throughId?: number): Promise<StoredRow[]> {
  let query = db.selectFrom('object_rows').selectAll().where('object_id', '=', objectId).where('org_id', '=', orgId).where('id', '>', afterId);
  if (throughId !== undefined) query = query.where('id', '<=', throughId);
  return query.orderBy('id').limit(limit).execute();
}

/** The highest row id reserved so far: every write after this reads has a higher one (rows' `rev`). */
export async function lastRowId(db: Executor, orgId: string, objectId: string): Promise<number> {
  const row = await db.selectFrom('object_definitions').select('last_row_id').where('org_id', '=', orgId).where('id', '=', objectId).executeTakeFirstOrThrow();
  return Number(row.last_row_id);
}

/** Rows written (inserted or replaced) since `rev`, through the (object_id, rev) index. */
export async function rowsWrittenSince(tx: Tx, orgId: string, objectId: string, rev: number): Promise<StoredRow[]> {
  return tx.selectFrom('object_rows').selectAll().where('object_id', '=', objectId).where('org_id', '=', orgId).where('rev', '>', rev).orderBy('id').execute();
}

/** Rewrites one row's stored form, only if no write replaced it since it was read (its `rev` unchanged). */
export async function rewriteRow(
  tx: Tx,
  orgId: string,
  objectId: string,
  id: number,
  rev: number | null,
  patch: Pick<StoredRow, 'data' | 'key_value'> & SlotValues,
): Promise<boolean> {
  let query = tx.updateTable('object_rows').set(patch).where('object_id', '=', objectId).where('org_id', '=', orgId).where('id', '=', id);
  query = rev === null ? query.where('rev', 'is', null) : query.where('rev', '=', rev);
  return Number((await query.executeTakeFirst()).numUpdatedRows) > 0;
}

/** Before rows take new key values: rows not rewritten yet (ids above `afterId`) that hold one of them as their old key let go of it. */
export async function releaseKeys(tx: Tx, orgId: string, objectId: string, afterId: number, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx
    .updateTable('object_rows')
    .set({ key_value: null })
    .where('object_id', '=', objectId)
    .where('org_id', '=', orgId)
    .where('id', '>', afterId)
    .where('key_value', 'in', keys)
    .execute();
}

/** Moves the rewrite on from `from` to `to` (null: finished), only if no other run moved it first. */
export async function advanceRewrite(tx: Tx, orgId: string, objectId: string, from: number, to: number | null): Promise<boolean> {
  const result = await tx
    .updateTable('object_definitions')
    .set(to === null ? { rewrite_after: null, rewrite_through: null, rewrite_from: null } : { rewrite_after: to })
    .where('org_id', '=', orgId)
    .where('id', '=', objectId)
    .where('rewrite_after', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
