import type { QueryResult } from 'kysely';
import { runStatement, type StatementCache } from './sqlite-statement-cache.js';

/**
 * The reads of one event-loop turn share one read transaction on the read-only connection. An autocommit read pays
 * SQLite's file-lock system calls on every statement (two fcntl and an fstat); inside an open read transaction only
 * the first read of the turn does. The snapshot ends before the next turn and before every commit of ours, so no
 * read is older than the turn it runs in, a write this process answered is seen by its next read, and our own
 * reader never holds back the checkpoint that the commit runs.
 *
 * When our commits are synced after COMMIT (sqlite-wal-sync.ts), the snapshot is instead pinned just before each
 * COMMIT and kept, across turns, until that commit is durable: a read never shows what a power loss could take back.
 */
/** The cheapest read that makes a read transaction take its snapshot. */
const PIN_READ = 'select 1 from sqlite_schema limit 1';

export class ReadSnapshot {
  private open = false;
  /** Pinned before a COMMIT whose sync is in flight: the turn's end leaves it open. */
  private pinned = false;
  private readonly end = (): void => {
    if (!this.pinned) this.close();
  };

  constructor(private readonly statements: StatementCache) {}

  run(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    if (!this.open) {
      this.statements.get('BEGIN').run();
      this.open = true;
      setImmediate(this.end);
    }
    return runStatement(this.statements.get(sql), parameters);
  }

  /** Takes a fresh snapshot now (the state before the COMMIT about to run) and keeps it until `unpin`. */
  pin(): void {
    this.close();
    // BEGIN alone takes no snapshot: the first read does.
    this.run(PIN_READ, []);
    this.pinned = true;
  }

  unpin(): void {
    this.pinned = false;
    this.close();
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    if (this.statements.connection.inTransaction) this.statements.get('COMMIT').run();
  }
}
