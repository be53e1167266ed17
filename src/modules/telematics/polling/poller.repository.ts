import { sql } from 'kysely';
import type { Dialect } from '../../../platform/db/database.js';
import type { Db, Executor } from '../../../platform/db/schema.js';
import type { ConnectionRow } from '../connections/connections.repository.js';

interface ClaimDueOptions {
  owner: string;
  nowIso: string;
  leaseUntil: string;
  limit: number;
  /** Providers this process may not start another poll of (at their concurrency limit, or told to wait by a 429). */
  skipProviders: readonly string[];
}

/**
 * Claims up to `limit` connections that are due: active, their time come, nobody's claim alive (a dead process's claim
 * runs out), the breaker closed or its cooldown over. On PostgreSQL concurrent pollers skip each other's rows; SQLite
 * runs one writer at a time, so the single UPDATE is the claim.
 */
export async function claimDueConnections(db: Db, dialect: Dialect, o: ClaimDueOptions): Promise<ConnectionRow[]> {
  return db
    .updateTable('telematics_connections')
    .set({ lease_owner: o.owner, lease_until: o.leaseUntil })
    .where('id', 'in', () => {
      let due = db
        .selectFrom('telematics_connections')
        .select('id')
        .where('status', '=', 'active')
        .where((eb) => eb.or([eb('next_poll_at', 'is', null), eb('next_poll_at', '<=', o.nowIso)]))
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', o.nowIso)]))
        .where((eb) => eb.or([eb('breaker_state', '=', 'closed'), eb('open_until', '<=', o.nowIso)]));
      if (o.skipProviders.length > 0) due = due.where('provider', 'not in', o.skipProviders);
      // Never-polled connections (null) first, then the longest overdue; both dialects order nulls differently.
      const ordered = due.orderBy(sql`coalesce(next_poll_at, '')`).limit(o.limit);
      return dialect === 'postgres' ? ordered.forUpdate().skipLocked() : ordered;
    })
    .returningAll()
    .execute();
}

/** Gives back a claim this process took but will not use now (a provider over its limit); the connection stays due. */
export async function releaseClaim(db: Executor, id: string, owner: string): Promise<void> {
  await db.updateTable('telematics_connections').set({ lease_owner: null, lease_until: null }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}
