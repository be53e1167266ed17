import { Counter, type Registry } from 'prom-client';
import type { DatabaseHandle } from './database.js';

/** A counter that follows a running total kept elsewhere, read at scrape time. */
function counterOf(registry: Registry, name: string, help: string, total: () => number): void {
  let counted = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = total();
      this.inc(now - counted);
      counted = now;
    },
  });
}

/**
 * SQLite group commit as counters: commits, and the transactions they held (transactions over commits is how many
 * writes shared each sync). Nothing on PostgreSQL, which has no group commit.
 */
export function registerDatabaseMetrics(registry: Registry, database: DatabaseHandle): void {
  const stats = database.groupCommit;
  if (stats === undefined) return;
  counterOf(registry, 'gateway_sqlite_commits_total', 'SQLite commits of the write connection (each one group of transactions)', () => stats.commits);
  counterOf(registry, 'gateway_sqlite_committed_transactions_total', 'Transactions committed on SQLite, each within one of gateway_sqlite_commits_total', () => stats.members);
}
