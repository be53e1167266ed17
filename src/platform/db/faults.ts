/**
 * Database failures that pass by themselves: SQLite's lock held by another connection past busy_timeout, PostgreSQL
 * restarting, refusing or dropping connections. A request that meets one answers 503 with Retry-After (the caller
 * retries; the transaction rolled back, so nothing is half-written) and the next one gets a fresh connection.
 */

/**
 * PostgreSQL SQLSTATEs of a server going away or refusing work for now (class 08, and 57P01-57P03, 53300), and 25006:
 * a write refused by a server that became a standby, which the pool leaves for the new primary (postgres-failover.ts).
 * Also the session cut by a timeout (57P05 idle_session_timeout, 25P03 idle-in-transaction timeout: both end the
 * connection) and 57014, a statement cancelled: by a statement_timeout the operator set in DATABASE_URL to bound a
 * primary that stops answering, or by an operator's pg_cancel_backend during a switchover.
 */
const PG_TRANSIENT_STATES = new Set(['57P01', '57P02', '57P03', '57P05', '57014', '53300', '25006', '25P03']);

/** Node's network errors on the way to the server. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * pg's own errors when a connection dies under a query, the pool cannot connect, or a query outlives pg's
 * query_timeout (they carry no code).
 */
const PG_CONNECTION_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/, /^Client was closed/, /^Query read timeout$/];

function codeOf(err: object): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether `err` (or what it wraps) is a database fault worth retrying rather than a bug. */
export function isTransientDatabaseError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = codeOf(e);
    if (code !== undefined) {
      // better-sqlite3's extended codes: SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, ...
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true;
      if (/^08[0-9A-Z]{3}$/.test(code) || PG_TRANSIENT_STATES.has(code) || NETWORK_CODES.has(code)) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && PG_CONNECTION_MESSAGES.some((m) => m.test(message))) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isTransientDatabaseError(inner))) return true;
  }
  return false;
}

/** Seconds a client waits before retrying after a database fault: a lock or a restart passes in about that. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;
