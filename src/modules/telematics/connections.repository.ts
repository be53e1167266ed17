import type { Executor } from '../../platform/db/schema.js';
import type { TelematicsConnectionsTable } from './telematics.tables.js';

export type ConnectionRow = TelematicsConnectionsTable;

export async function insertConnection(db: Executor, row: ConnectionRow): Promise<void> {
  await db.insertInto('telematics_connections').values(row).execute();
}

export function findConnection(db: Executor, orgId: string, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('telematics_connections').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** Newest first, `limit + 1` rows from below `beforeId` (the page helper cuts the extra one). */
export function listConnections(db: Executor, orgId: string, limit: number, beforeId?: string): Promise<ConnectionRow[]> {
  let query = db.selectFrom('telematics_connections').selectAll().where('org_id', '=', orgId);
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

export function findByConsentState(db: Executor, stateHash: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('telematics_connections').selectAll().where('consent_state_hash', '=', stateHash).executeTakeFirst();
}

/** Ends a pending consent (given, or timed out) if it is still the one with this state; true when this call ended it. */
export async function endConsent(
  db: Executor,
  id: string,
  stateHash: string,
  outcome: Pick<ConnectionRow, 'status' | 'oauth_tokens_ciphertext' | 'updated_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('telematics_connections')
    .set({ ...outcome, consent_state_hash: null, consent_verifier_ciphertext: null })
    .where('id', '=', id)
    .where('consent_state_hash', '=', stateHash)
    .where('status', '=', 'pending_consent')
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Stores refreshed OAuth tokens, or marks the connection reauth_required (tokens kept for the record) when the vendor refused. */
export async function updateOAuth(db: Executor, id: string, change: Partial<Pick<ConnectionRow, 'status' | 'oauth_tokens_ciphertext'>> & { updated_at: string }): Promise<void> {
  await db.updateTable('telematics_connections').set(change).where('id', '=', id).execute();
}
