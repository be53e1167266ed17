import { Counter, type Registry } from 'prom-client';
import type { DatabaseHandle } from './database.js';

/**
 * SQLite group commit as counters: commits, and the transactions they held (members over commits is how many
 * writes shared each sync). Read from the committer at scrape time; nothing on PostgreSQL, which has no group commit.
 */
export function registerDatabaseMetrics(registry: Registry, database: DatabaseHandle): void {
  const stats = database.groupCommit;
  if (stats === undefined) return;
  const counted = { commits: 0, members: 0 };
  new Counter({
    name: 'gateway_sqlite_commits_total',
    help: 'SQLite commits of the write connection (each one group of transactions)',
    registers: [registry],
    collect() {
      this.inc(stats.commits - counted.commits);
      counted.commits = stats.commits;
    },
  });
  new Counter({
    name: 'gateway_sqlite_committed_transactions_total',
    help: 'Transactions committed on SQLite, each within one of gateway_sqlite_commits_total',
    registers: [registry],
    collect() {
      this.inc(stats.members - counted.members);
      counted.members = stats.members;
    },
  });
}
