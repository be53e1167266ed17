import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { Executor } from '../db/schema.js';
import './instances.tables.js';

/** The database's clock in ms since the epoch: every process compares heartbeats on it, whatever its own clock says. */
function databaseNowMs(dialect: Dialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)`
    : sql<number>`((julianday('now') - 2440587.5) * 86400000.0)`;
}

/** Records that `id` is alive now (its first beat registers it). */
export async function beat(db: Executor, dialect: Dialect, id: string, startedAt: string): Promise<void> {
  const now = databaseNowMs(dialect);
  await db
    .insertInto('gateway_instances')
    .values({ id, started_at: startedAt, heartbeat_ms: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat_ms: now }))
    .execute();
}

/** The ids of the instances that beat within the last `ttlMs`, as a subquery. */
export function liveIds(db: Executor, dialect: Dialect, ttlMs: number) {
  return db.selectFrom('gateway_instances').select('id').where('heartbeat_ms', '>', sql<number>`${databaseNowMs(dialect)} - ${ttlMs}`);
}

export async function isLive(db: Executor, dialect: Dialect, id: string, ttlMs: number): Promise<boolean> {
  return (await liveIds(db, dialect, ttlMs).where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Forgets `id` (a clean stop: what it owned is free at once), and instances silent for longer than `forgetMs`. */
export async function remove(db: Executor, dialect: Dialect, id: string, forgetMs: number): Promise<void> {
  await db
    .deleteFrom('gateway_instances')
    .where((eb) => eb.or([eb('id', '=', id), eb('heartbeat_ms', '<', sql<number>`${databaseNowMs(dialect)} - ${forgetMs}`)]))
    .execute();
}
