import { sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { Db, Executor, IdempotencyKeysTable } from '../db/schema.js';

export type IdempotencyRow = IdempotencyKeysTable;

/** Where a caller's keys live: an org's (API keys, portal keys) or the operator's, which acts for no org. */
export type IdempotencyTable = 'idempotency_keys' | 'operator_idempotency_keys';

/** Both tables have the same columns: the queries are typed against one and run against the one named. */
const tableOf = (table: IdempotencyTable) => table as 'idempotency_keys';

/** Inserts an in-flight record; false when the org already has this key. */
export async function insertKey(db: Executor, table: IdempotencyTable, row: IdempotencyRow): Promise<boolean> {
  const result = await db
    .insertInto(tableOf(table))
    .values(row)
    .onConflict((oc) => oc.columns(['org_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findKey(db: Executor, table: IdempotencyTable, orgId: string, key: string): Promise<IdempotencyRow | undefined> {
  return db.selectFrom(tableOf(table)).selectAll().where('org_id', '=', orgId).where('key', '=', key).executeTakeFirst();
}

/** Replaces an expired or abandoned record, only if it is still the one we looked at (another request may be faster). */
export async function takeOver(db: Executor, table: IdempotencyTable, seen: IdempotencyRow, row: IdempotencyRow): Promise<boolean> {
  const result = await db
    .updateTable(tableOf(table))
    .set(row)
    .where('org_id', '=', seen.org_id)
    .where('key', '=', seen.key)
    .where('created_at', '=', seen.created_at)
    .where('state', '=', seen.state)
    .where('owner_id', seen.owner_id === null ? 'is' : '=', seen.owner_id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Writes what the call answered, only while `owner` still holds the key; also over an earlier record of the same call (a
 * replayable answer written at commit). False when another process took the key over (it judged this one dead).
 */
export async function saveOutcome(
  db: Executor,
  table: IdempotencyTable,
  orgId: string,
  key: string,
  fingerprint: string,
  owner: string,
  outcome: { statusCode: number; body: string },
): Promise<boolean> {
  const result = await db
    .updateTable(tableOf(table))
    .set({ state: 'done', status_code: outcome.statusCode, content_type: 'application/json', response_body: outcome.body })
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .where('fingerprint', '=', fingerprint)
    .where('owner_id', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function releaseKey(db: Executor, table: IdempotencyTable, orgId: string, key: string, fingerprint: string, owner: string): Promise<void> {
  await db
    .deleteFrom(tableOf(table))
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .where('fingerprint', '=', fingerprint)
    .where('owner_id', '=', owner)
    .where('state', '=', 'in_flight')
    .execute();
}

/**
 * Deletes up to `limit` records whose replay window ended before `before`, in one statement; answers how many. On
 * PostgreSQL concurrent purges (every serve process runs one) skip each other's rows instead of waiting on them.
 */
export async function purgeExpired(db: Db, dialect: Dialect, table: IdempotencyTable, before: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom(tableOf(table))
    .where(() => {
      const expired = db.selectFrom(tableOf(table)).select(['org_id', 'key']).where('expires_at', '<', before).limit(limit);
      return sql<boolean>`(org_id, key) in (${dialect === 'postgres' ? expired.forUpdate().skipLocked() : expired})`;
    })
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
