import { sql } from 'kysely';
import type { Dialect } from '../../../platform/db/database.js';
import type { Db, Executor } from '../../../platform/db/schema.js';
import type { TelematicsSyncMachinesTable, TelematicsSyncsTable } from '../telematics.tables.js';

export type SyncRow = TelematicsSyncsTable;
export type SyncMachineRow = TelematicsSyncMachinesTable;

/** What a sync's holder writes as it goes (progress, retries, its end). */
type SyncChange = Partial<Omit<SyncRow, 'id' | 'org_id' | 'connection_id' | 'window_from' | 'window_to' | 'created_at'>> & { updated_at: string };

export async function insertSync(db: Executor, row: SyncRow): Promise<void> {
  await db.insertInto('telematics_syncs').values(row).execute();
}

export function findSync(db: Executor, orgId: string, connectionId: string, id: string): Promise<SyncRow | undefined> {
  return db.selectFrom('telematics_syncs').selectAll().where('org_id', '=', orgId).where('connection_id', '=', connectionId).where('id', '=', id).executeTakeFirst();
}

/** Newest first, `limit + 1` rows from below `beforeId` (the page helper cuts the extra one). */
export function listSyncs(db: Executor, orgId: string, connectionId: string, page: { limit: number; beforeId?: string | undefined; status?: string | undefined }): Promise<SyncRow[]> {
  let query = db.selectFrom('telematics_syncs').selectAll().where('org_id', '=', orgId).where('connection_id', '=', connectionId);
  if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
  if (page.status !== undefined) query = query.where('status', '=', page.status as SyncRow['status']);
  return query.orderBy('id', 'desc').limit(page.limit + 1).execute();
}

/** Ends a sync the caller's request cancels, if it has not ended; true when this call did. */
export async function cancelSync(db: Executor, orgId: string, id: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('telematics_syncs')
    .set({ status: 'cancelled', finished_at: nowIso, updated_at: nowIso, lease_owner: null, lease_until: null })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Cancels every unfinished sync of a connection (it is being disconnected) and drops their machine lists. */
export async function cancelUnfinished(db: Executor, connectionId: string, nowIso: string): Promise<void> {
  const ended = await db
    .updateTable('telematics_syncs')
    .set({ status: 'cancelled', failure_reason: 'the connection was disconnected', finished_at: nowIso, updated_at: nowIso, lease_owner: null, lease_until: null })
    .where('connection_id', '=', connectionId)
    .where('status', 'in', ['queued', 'running'])
    .returning('id')
    .execute();
  for (const { id } of ended) await deleteMachines(db, id);
}

/**
 * Claims up to `limit` unfinished syncs nobody holds (a dead process's claim runs out) whose retry time has come, and
 * marks them running; only the sync `id` when given. On PostgreSQL concurrent workers skip each other's rows; on SQLite
 * the single UPDATE is the claim.
 */
export async function claimSyncs(db: Db, dialect: Dialect, o: { owner: string; nowIso: string; leaseUntil: string; limit: number; id?: string }): Promise<SyncRow[]> {
  return db
    .updateTable('telematics_syncs')
    .set({ status: 'running', lease_owner: o.owner, lease_until: o.leaseUntil, started_at: sql<string>`coalesce(started_at, ${o.nowIso})`, updated_at: o.nowIso })
    .where('id', 'in', () => {
      const due = db
        .selectFrom('telematics_syncs')
        .select('id')
        .where('status', 'in', ['queued', 'running'])
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', o.nowIso)]))
        .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', o.nowIso)]))
        .$if(o.id !== undefined, (q) => q.where('id', '=', o.id ?? ''))
        .orderBy('id')
        .limit(o.limit);
      return dialect === 'postgres' ? due.forUpdate().skipLocked() : due;
    })
    .returningAll()
    .execute();
}

/** Writes what the holder did, only while it still holds the sync and nobody cancelled it; true when it did. */
export async function updateHeld(db: Executor, id: string, owner: string, change: SyncChange): Promise<boolean> {
  const result = await db.updateTable('telematics_syncs').set(change).where('id', '=', id).where('lease_owner', '=', owner).where('status', '=', 'running').executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

export async function findSyncById(db: Executor, id: string): Promise<SyncRow | undefined> {
  return db.selectFrom('telematics_syncs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Rows per multi-row insert: 4 columns each stays far below either dialect's bound parameters. */
const MACHINE_CHUNK = 1000;

export async function insertMachines(db: Executor, rows: readonly SyncMachineRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += MACHINE_CHUNK) await db.insertInto('telematics_sync_machines').values(rows.slice(i, i + MACHINE_CHUNK)).execute();
}

export function machineAt(db: Executor, syncId: string, position: number): Promise<SyncMachineRow | undefined> {
  return db.selectFrom('telematics_sync_machines').selectAll().where('sync_id', '=', syncId).where('position', '=', position).executeTakeFirst();
}

export async function deleteMachines(db: Executor, syncId: string): Promise<void> {
  await db.deleteFrom('telematics_sync_machines').where('sync_id', '=', syncId).execute();
}
