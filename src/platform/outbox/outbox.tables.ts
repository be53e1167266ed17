import { type RawBuilder, sql } from 'kysely';

export const OUTBOX_STATUSES = ['queued', 'delivering', 'delivered', 'rejected'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/**
 * A delivery still to be sent (queued, or being sent), as literal SQL on `column`: SQLite uses a partial index only
 * when a query repeats its WHERE term word for word, and a bound parameter (`status in (?, ?)`) never does.
 */
export function pendingSql(column: 'status' | 'outbox.status'): RawBuilder<boolean> {
  return sql<boolean>`${sql.raw(column)} in ('queued', 'delivering')`;
}

/** next_attempt_at of a delivery nobody has tried yet: due at once, whatever clock the worker runs on. */
export const DUE_NOW = '1970-01-01T00:00:00.000Z';

/** One delivery waiting for, or done with, its destination (the hub; later a partner URL). */
export interface OutboxTable {
  id: string;
  org_id: string;
  /** Who receives it: `hub` today; another kind (a partner endpoint) adds its own sender. */
  destination: string;
  /** Destination-specific address (a partner id or URL); null for the hub. */
  target: string | null;
  type: string;
  content_type: string;
  payload: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

// The outbox owns its table, as a module does: merged into the platform's Database.
declare module '../db/schema.js' {
  interface Database {
    outbox: OutboxTable;
  }
}
