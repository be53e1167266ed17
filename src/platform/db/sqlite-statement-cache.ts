import type Database from 'better-sqlite3';
import type { QueryResult } from 'kysely';

const MAX_STATEMENTS = 500;

/**
 * Prepared statements of one connection, by SQL text: preparing costs more than running a point query. Statements
 * are used one at a time (each runs to completion before the next; nothing streams, see sqlite-dialect.ts).
 */
export class StatementCache {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(readonly connection: Database.Database) {}

  get(sql: string): Database.Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.connection.prepare(sql);
      if (this.cache.size >= MAX_STATEMENTS) {
        const oldest = this.cache.keys().next();
        if (!oldest.done) this.cache.delete(oldest.value);
      }
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

/** Runs a statement as Kysely expects: rows for a statement that returns data, counts for one that does not. */
export function runStatement(stmt: Database.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (stmt.reader) return { rows: stmt.all(parameters) };
  const { changes, lastInsertRowid } = stmt.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}
