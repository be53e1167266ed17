import type { QueryResult } from 'kysely';
import { runStatement, type StatementCache } from './sqlite-statement-cache.js';

/**
 * The reads of one event-loop turn share one read transaction on the read-only connection. An autocommit read pays
 * SQLite's file-lock system calls on every statement (two fcntl and an fstat); inside an open read transaction only
 * the first read of the turn does. The snapshot ends before the next turn and before every commit of ours, so no
 * read is older than the turn it runs in, a write this process answered is seen by its next read, and our own
 * reader never holds back the checkpoint that the commit runs.
 */
export class ReadSnapshot {
  private open = false;
  private readonly end = (): void => this.close();

  constructor(private readonly statements: StatementCache) {}

  run(sql: string, parameters: readonly unknown[]): QueryResult<unknown> {
    if (!this.open) {
      this.statements.get('BEGIN').run();
      this.open = true;
      setImmediate(this.end);
    }
    return runStatement(this.statements.get(sql), parameters);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    if (this.statements.connection.inTransaction) this.statements.get('COMMIT').run();
  }
}
