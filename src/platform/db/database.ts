import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { ConfigError } from '../../config-errors.js';
import { DEFAULT_DATABASE_POOL_SIZE, DEFAULT_SQLITE_CACHE_MB, isPostgresUrl, type SqliteSynchronous } from '../../config.js';
import type { Database, Db } from './schema.js';
import { preparedStatementName } from './prepared-query.js';
import { failoverPoolOptions } from './postgres-failover.js';
import { parsePostgresTargets, PostgresUrlError, type PostgresTargets } from './postgres-hosts.js';
import { OwnSchemaPostgresDialect } from './postgres-dialect.js';
import { GatewaySqliteDialect } from './sqlite-dialect.js';
import { WalCheckpointThread } from './sqlite-wal-checkpoint.js';
import { WalSync } from './sqlite-wal-sync.js';
import type { GroupCommitStats } from './sqlite-group-commit.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** SQLite: batches committed and the transactions they held. */
  groupCommit?: GroupCommitStats;
  /**
   * SQLite: keeps the write connection's savepoint and statement journals in memory from now on (temp_store), for a
   * process that is done migrating. Each member of a group commit runs in a savepoint, and SQLite copies every page it
   * first changes there to that journal: in a temporary file, a write system call per page, ~13 % of an order's CPU.
   * In memory a member's journal is a few pages, freed at its release; migrations keep the file, since one statement
   * over a large table would journal the whole table.
   */
  journalsInMemory?(): void;
  close(): Promise<void>;
}

// pg returns int8 as strings; our bigints (money in 1/10000, counters) stay below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

/**
 * pg's client, sending a prepared query's SQL as a named statement: the server parses and plans it once per
 * connection instead of on every call. Every other query goes as before (unnamed).
 */
class PreparingClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [text, values] = args;
    const name = typeof text === 'string' && Array.isArray(values) && args.length === 2 ? preparedStatementName(text) : undefined;
    const query = super.query.bind(this) as (...a: unknown[]) => never;
    return name === undefined ? query(...args) : query({ name, text, values });
  }
}

interface OpenDatabaseOptions {
  /** PostgreSQL only: run every session in this schema (tests isolate themselves this way). */
  schema?: string;
  poolSize?: number;
  /** SQLite's page cache for this connection, in MB (SQLITE_CACHE_MB). */
  cacheMb?: number;
  /** SQLite: how long a statement waits for another connection's lock before SQLITE_BUSY (SQLITE_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
  /** SQLite: FULL (a commit survives power loss; the default) or NORMAL (SQLITE_SYNCHRONOUS). */
  synchronous?: SqliteSynchronous;
  /** SQLite at FULL: the system call that syncs the WAL after a commit (fdatasync; tests make it wait or fail). */
  syncWal?: ConstructorParameters<typeof WalSync>[1];
  /** SQLite at FULL: runs the WAL checkpoint off the event loop (by default in a thread of its own; tests make it wait or fail). */
  checkpointWal?: () => Promise<void>;
  /** SQLite: told once when an existing database file open to group or others is tightened to 0600. */
  log?: Pick<Logger, 'warn'>;
}

/**
 * Creates the SQLite file, if absent, readable by its owner only (0600, like gateway.secret): it holds every org's data
 * and the key hashes. SQLite gives the -wal and -shm files it makes the database file's mode, so they are 0600 too.
 * An existing file (and its -wal and -shm) open to group or others is tightened to 0600, and the change logged.
 */
function createPrivately(file: string, log: OpenDatabaseOptions['log']): void {
  mkdirSync(dirname(file), { recursive: true });
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
    tightenModes([file, `${file}-wal`, `${file}-shm`], log);
  }
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** Sets 0600 on those of `files` open to group or others; a file that is missing, or not ours to change, is left. */
function tightenModes(files: string[], log: OpenDatabaseOptions['log']): void {
  const tightened: { file: string; was: string }[] = [];
  for (const file of files) {
    const mode = statSync(file, { throwIfNoEntry: false })?.mode;
    if (mode === undefined || (mode & 0o077) === 0) continue;
    try {
      chmodSync(file, 0o600);
      tightened.push({ file, was: octal(mode) });
    } catch (err) {
      log?.warn({ file, mode: octal(mode), err: (err as Error).message }, 'the SQLite database file is open to group or others and could not be made 0600');
    }
  }
  if (tightened.length > 0) log?.warn({ files: tightened }, 'tightened the SQLite database files to 0600: they hold every org\'s data and the key hashes');
}

/** A bad host list fails at start with one line, like any other bad setting (the URL itself, password and all, is not repeated). */
function postgresTargetsOf(url: string): PostgresTargets {
  try {
    return parsePostgresTargets(url);
  } catch (err) {
    if (err instanceof PostgresUrlError) throw new ConfigError(`invalid configuration: DATABASE_URL: ${err.message}`);
    throw err;
  }
}

export function openDatabase(url: string, opts: OpenDatabaseOptions = {}): DatabaseHandle {
  if (isPostgresUrl(url)) {
    const targets = postgresTargetsOf(url);
    const session = opts.schema ? { options: `-c search_path=${opts.schema}` } : {};
    const max = opts.poolSize ?? DEFAULT_DATABASE_POOL_SIZE;
    // One host and no target_session_attrs: pg as it is. Otherwise pick the host libpq would (postgres-failover.ts).
    const pool = new pg.Pool(
      targets.hosts.length <= 1 && targets.targetSessionAttrs === 'any' && targets.connectTimeoutMs === undefined
        ? { Client: PreparingClient, connectionString: url, max, ...session }
        : { ...failoverPoolOptions(targets, session, PreparingClient), max },
    );
    // A connection the server drops (a restart, pg_terminate_backend) emits 'error': on the pool while idle, on the client
    // while checked out between queries. Unheard, either would end the process. The query in flight fails by itself
    // (503, see faults.ts); the pool discards the broken client on release and the next query connects afresh.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const file = url.slice('sqlite:'.length);
  if (file !== ':memory:') createPrivately(file, opts.log);
  const write = new SQLite(file);
  write.pragma('journal_mode = WAL');
  // FULL: the WAL is synced at every commit, so an answered write survives power loss; group commit pays it once per
  // batch. On a file that sync runs after COMMIT, off the event loop (WalSync): the connection itself commits at NORMAL.
  const synchronous = opts.synchronous ?? 'FULL';
  const walSync = synchronous === 'FULL' && file !== ':memory:' ? new WalSync(`${file}-wal`, opts.syncWal) : undefined;
  write.pragma(`synchronous = ${walSync === undefined ? synchronous : 'NORMAL'}`);
  // The group committer checkpoints after each sync instead, when due (sqlite-group-commit.ts, checkpointIfDue).
  if (walSync !== undefined) write.pragma('wal_autocheckpoint = 0');
  write.pragma('foreign_keys = ON');
  // Gives the planner statistics for tables that have grown, as SQLite advises on open; the limit keeps a large
  // database's start-up from running a full ANALYZE.
  write.pragma('analysis_limit = 400');
  write.pragma('optimize = 0x10002');
  // Opened after the writer has made the file and set WAL; read-only, so a statement routed here can never write.
  const read = file === ':memory:' ? undefined : new SQLite(file, { readonly: true });
  const lockWaitMs = opts.busyTimeoutMs ?? 5000;
  // The writer's wait for another process's lock is the group committer's, on the event loop (sqlite-group-commit.ts):
  // SQLite's own busy wait would hold the whole process, reads included, for as long as the other writer holds the lock.
  write.pragma('busy_timeout = 0');
  read?.pragma(`busy_timeout = ${lockWaitMs}`);
  for (const connection of read ? [write, read] : [write]) {
    // Bounded small (better-sqlite3 builds with 16 MB): the OS caches the file anyway, and a 10 MB interchange's writes
    // would otherwise grow every process by the whole cache (docs/decisions.md, "SQLite page cache").
    connection.pragma(`cache_size = ${-1024 * (opts.cacheMb ?? DEFAULT_SQLITE_CACHE_MB)}`);
  }
  const dialect = new GatewaySqliteDialect({ write, ...(read ? { read } : {}), lockWaitMs, ...(walSync ? { walSync, checkpointThread: opts.checkpointWal ? { run: opts.checkpointWal, close: () => Promise.resolve() } : new WalCheckpointThread(file) } : {}) });
  const db = new Kysely<Database>({ dialect });
  return { db, dialect: 'sqlite', groupCommit: dialect.groupCommitStats, journalsInMemory: () => write.pragma('temp_store = MEMORY'), close: () => db.destroy() };
}
