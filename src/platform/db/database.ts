import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { DEFAULT_SQLITE_CACHE_MB, isPostgresUrl } from '../../config.js';
import type { Database, Db } from './schema.js';
import { withStatementCache } from './sqlite-statement-cache.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

// pg returns int8 as strings; our bigints (money in 1/10000, counters) stay below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export interface OpenDatabaseOptions {
  /** PostgreSQL only: run every session in this schema (tests isolate themselves this way). */
  schema?: string;
  poolSize?: number;
  /** SQLite's page cache for this connection, in MB (SQLITE_CACHE_MB). */
  cacheMb?: number;
  /** SQLite: how long a statement waits for another connection's lock before SQLITE_BUSY (SQLITE_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

export function openDatabase(url: string, opts: OpenDatabaseOptions = {}): DatabaseHandle {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize ?? 10,
      ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    });
    // A connection the server drops (a restart, pg_terminate_backend) emits 'error': on the pool while idle, on the client
    // while checked out between queries. Unheard, either would end the process. The query in flight fails by itself
    // (503, see faults.ts); the pool discards the broken client on release and the next query connects afresh.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  sqlite.pragma('foreign_keys = ON');
  // Bounded small (better-sqlite3 builds with 16 MB): the OS caches the file anyway, and a 10 MB interchange's writes
  // would otherwise grow every process by the whole cache (docs/decisions.md, "SQLite page cache").
  sqlite.pragma(`cache_size = ${-1024 * (opts.cacheMb ?? DEFAULT_SQLITE_CACHE_MB)}`);
  // Gives the planner statistics for tables that have grown, as SQLite advises on open; the limit keeps a large
  // database's start-up from running a full ANALYZE.
  sqlite.pragma('analysis_limit = 400');
  sqlite.pragma('optimize = 0x10002');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}
