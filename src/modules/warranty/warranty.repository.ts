import { sql } from 'kysely';
import type { SinceWindow } from '../../platform/core/pagination.js';
import { inSinceOrder } from '../../platform/db/since-order.js';
import type { Executor, Tx } from '../../platform/db/schema.js';
import type { ClaimStatus } from './claim-states.js';
import type { WarrantyClaimHistoryTable, WarrantyClaimsTable } from './warranty.tables.js';

export type ClaimRow = WarrantyClaimsTable;
export type HistoryRow = WarrantyClaimHistoryTable;

/**
 * Takes the org's next claim number inside the caller's transaction. The counter row stays locked (PostgreSQL) or
 * the database stays write-locked (SQLite) until commit, and a rollback returns the number: no gaps, no repeats.
 */
export async function takeClaimNumber(tx: Tx, orgId: string): Promise<number> {
  const row = await tx
    .insertInto('warranty_claim_counters')
    .values({ org_id: orgId, last_number: 1 })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ last_number: sql<number>`warranty_claim_counters.last_number + 1` }))
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return Number(row.last_number);
}

export async function insertClaim(tx: Tx, row: ClaimRow): Promise<void> {
  await tx.insertInto('warranty_claims').values(row).execute();
}

export async function insertHistory(tx: Tx, row: HistoryRow): Promise<void> {
  await tx.insertInto('warranty_claim_history').values(row).execute();
}

export async function findClaimById(db: Executor, orgId: string, id: string): Promise<ClaimRow | undefined> {
  return db.selectFrom('warranty_claims').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

export async function findClaimByNumber(db: Executor, orgId: string, number: number): Promise<ClaimRow | undefined> {
  return db.selectFrom('warranty_claims').selectAll().where('org_id', '=', orgId).where('number', '=', number).executeTakeFirst();
}

/** Newest first: the claim number follows commit order, unlike timestamps that tie. */
export async function listClaims(
  db: Executor,
  orgId: string,
  opts: { status?: ClaimStatus; beforeNumber?: number; since?: SinceWindow; limit: number },
): Promise<ClaimRow[]> {
  let query = db.selectFrom('warranty_claims').selectAll().where('org_id', '=', orgId);
  if (opts.status !== undefined) query = query.where('status', '=', opts.status);
  if (opts.since !== undefined) return inSinceOrder(query, opts.since, 'id').limit(opts.limit).execute();
  if (opts.beforeNumber !== undefined) query = query.where('number', '<', opts.beforeNumber);
  return query.orderBy('number', 'desc').limit(opts.limit).execute();
}

export async function historyOf(db: Executor, orgId: string, claimIds: string[]): Promise<HistoryRow[]> {
  if (claimIds.length === 0) return [];
  return db
    .selectFrom('warranty_claim_history')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('claim_id', 'in', claimIds)
    .orderBy('claim_id')
    .orderBy('seq')
    .execute();
}

/** Compare-and-set on status: returns undefined when another request changed the claim first. */
export async function updateClaimIfStatus(
  tx: Tx,
  orgId: string,
  id: string,
  expectedStatus: ClaimStatus,
  patch: Pick<ClaimRow, 'status' | 'resolution' | 'updated_at'>,
): Promise<ClaimRow | undefined> {
  return tx
    .updateTable('warranty_claims')
    .set(patch)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .where('status', '=', expectedStatus)
    .returningAll()
    .executeTakeFirst();
}
