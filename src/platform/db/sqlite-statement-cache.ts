import type Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_STATEMENTS = 500;

/**
 * Hands Kysely's SQLite driver prepared statements from a cache keyed by SQL text: preparing costs more than
 * running a point query. Statements are used one at a time (queries run to completion on one connection);
 * streamed queries (iterate) get a fresh statement so a cached one is never left mid-iteration.
 */
export function withStatementCache(db: Database.Database): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = db.prepare(sql);
        if (cache.size >= MAX_STATEMENTS) {
          const oldest = cache.keys().next();
          if (!oldest.done) cache.delete(oldest.value);
        }
        cache.set(sql, stmt);
      }
      const cached = stmt;
      return {
        reader: cached.reader,
        all: (parameters) => cached.all(...parameters),
        run: (parameters) => cached.run(...parameters),
        iterate: (parameters) => db.prepare(sql).iterate(...parameters),
      };
    },
  };
}
