import type { ExpressionBuilder } from 'kysely';
import type { SinceWindow } from '../../../platform/core/pagination.js';
import type { Database, Executor } from '../../../platform/db/schema.js';
import { inSinceOrder } from '../../../platform/db/since-order.js';
import type { TelematicsConnectionsTable } from '../telematics.tables.js';

export type ConnectionRow = TelematicsConnectionsTable;

export async function insertConnection(db: Executor, row: ConnectionRow): Promise<void> {
  await db.insertInto('telematics_connections').values(row).execute();
}

export function findConnection(db: Executor, orgId: string, id: string): Promise<ConnectionRow | undefined> {
  return db.selectFrom('telematics_connections').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/**
 * The rows that read as `status`: a pending consent past its time reads as consent_expired (connections.service
 * statusOf), so the two filters look at the consent time too.
 */
function statusFilter(status: string, now: string) {
  return (eb: ExpressionBuilder<Database, 'telematics_connections'>) => {
    if (status === 'consent_expired') return eb.or([eb('status', '=', status), eb.and([eb('status', '=', 'pending_consent'), eb('consent_expires_at', '<=', now)])]);
    if (status === 'pending_consent') return eb.and([eb('status', '=', status), eb('consent_expires_at', '>', now)]);
    return eb('status', '=', status);
  };
}

/** Newest first, `limit + 1` rows from below `beforeId` (the page helper cuts the extra one). */
export function listConnections(
  db: Executor,
  orgId: string,
  page: { limit: number; beforeId?: string | undefined; status?: string | undefined; since?: SinceWindow | undefined; nowIso: string },
): Promise<ConnectionRow[]> {
  const { limit, beforeId, status, since, nowIso } = page;
  let query = db.selectFrom('telematics_connections').selectAll().where('org_id', '=', orgId);
  if (status !== undefined) query = query.where(statusFilter(status, nowIso));
  // Or: changed since an instant, oldest change first (updated_since).
  if (since !== undefined) return inSinceOrder(query, since, 'id').limit(limit + 1).execute();
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

/** Claims the connection for one poll (or replay) if nobody holds it, or the holder's claim ran out; true when this call did. */
export async function claimLease(db: Executor, id: string, owner: string, nowIso: string, untilIso: string): Promise<boolean> {
  const result = await db
    .updateTable('telematics_connections')
    .set({ lease_owner: owner, lease_until: untilIso })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowIso)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Records how a poll ended and gives the claim back (only the holder's). */
export async function finishPoll(
  db: Executor,
  id: string,
  owner: string,
  change: Partial<Pick<ConnectionRow, 'status' | 'cursors' | 'breaker_state' | 'consecutive_failures' | 'open_until' | 'cooldown_s' | 'last_run' | 'last_error' | 'next_poll_at' | 'issues'>> & {
    updated_at: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('telematics_connections')
    .set({ ...change, lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  // False when the claim was lost meanwhile (run out and taken, or the connection disconnected): nothing was written.
  return result.numUpdatedRows === 1n;
}

/** The operator's look-up (the CLI has no org key): by id alone, or narrowed to one org. */
export function findConnectionForOperator(db: Executor, id: string, orgId?: string): Promise<ConnectionRow | undefined> {
  let query = db.selectFrom('telematics_connections').selectAll().where('id', '=', id);
  if (orgId !== undefined) query = query.where('org_id', '=', orgId);
  return query.executeTakeFirst();
}

/** Changes the polling settings if the status is still the one they were decided on; true when this call did. */
export async function updatePolling(
  db: Executor,
  id: string,
  expectedStatus: string,
  change: Partial<Pick<ConnectionRow, 'status' | 'poll_interval_s' | 'next_poll_at'>> & { updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('telematics_connections').set(change).where('id', '=', id).where('status', '=', expectedStatus).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** A reconnect: new credentials or a new consent on the same connection (cursors, interval and id kept); true when it exists. */
export async function reconnect(
  db: Executor,
  orgId: string,
  id: string,
  change: Pick<
    ConnectionRow,
    | 'status'
    | 'label'
    | 'credentials_ciphertext'
    | 'credentials_hint'
    | 'oauth_tokens_ciphertext'
    | 'vendor_token_ciphertext'
    | 'fleet_id'
    | 'consent_state_hash'
    | 'consent_verifier_ciphertext'
    | 'consent_expires_at'
    | 'breaker_state'
    | 'consecutive_failures'
    | 'open_until'
    | 'cooldown_s'
    | 'next_poll_at'
    | 'updated_at'
  >,
): Promise<boolean> {
  const result = await db.updateTable('telematics_connections').set(change).where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Disconnects: no more polls (a poll in flight loses its claim, so its end writes nothing), credentials, tokens and
 * consent erased, the row kept for the record. Undefined when no such connection; the row as it is now otherwise.
 */
export async function disconnect(db: Executor, orgId: string, id: string, nowIso: string): Promise<ConnectionRow | undefined> {
  return db
    .updateTable('telematics_connections')
    .set({
      status: 'disconnected',
      credentials_ciphertext: null,
      oauth_tokens_ciphertext: null,
      vendor_token_ciphertext: null,
      consent_state_hash: null,
      consent_verifier_ciphertext: null,
      consent_expires_at: null,
      next_poll_at: null,
      lease_owner: null,
      lease_until: null,
      updated_at: nowIso,
    })
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Forgets the marks' summary unless a poll holds the connection (it would store marks moved from the old ones); true when this call did. */
export async function clearCursors(db: Executor, id: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('telematics_connections')
    .set({ cursors: null, updated_at: nowIso })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowIso)]))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Keeps (or, with null, drops) the connection's cached vendor token; only the poll holding the claim writes it. */
export async function setVendorToken(db: Executor, id: string, owner: string, ciphertext: string | null): Promise<void> {
  await db.updateTable('telematics_connections').set({ vendor_token_ciphertext: ciphertext }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/** Moves the holder's claim forward (a poll still making progress). */
export async function renewClaim(db: Executor, id: string, owner: string, untilIso: string): Promise<void> {
  await db.updateTable('telematics_connections').set({ lease_until: untilIso }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}
