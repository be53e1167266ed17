import { closeSync, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { ConfigError, isPostgresUrl } from '../config.js';
import type { Database } from '../platform/db/schema.js';
import { liveIds } from '../platform/instances/instances.repository.js';
import { SECRET_FILE } from '../platform/secrets/gateway-secret.js';

/** The whole database in one step of the backup API: one read snapshot, so writes meanwhile cannot restart it. */
const ALL_PAGES = 0x7fffffff;
const BUSY_TIMEOUT_MS = 5000;

export interface BackupOutcome {
  database: string;
  file: string;
  pages: number;
  /** The secret file the backup's vendor credentials need, or null when GATEWAY_SECRET is set in the environment. */
  secretFile: string | null;
}

/** The SQLite file DATABASE_URL names; PostgreSQL and in-memory databases have their own tools or nothing to keep. */
function sqliteFileOf(databaseUrl: string): string {
  if (isPostgresUrl(databaseUrl)) {
    throw new ConfigError('backup and restore are for the embedded SQLite database; on PostgreSQL use pg_dump (logical) or pg_basebackup (physical)');
  }
  const file = databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:') throw new ConfigError('DATABASE_URL is an in-memory database: there is nothing to back up or restore');
  return resolve(file);
}

function secretFileOf(databaseFile: string, gatewaySecret: string | undefined): string | null {
  return gatewaySecret ? null : join(dirname(databaseFile), SECRET_FILE);
}

function open(file: string, readonly: boolean): SQLite.Database {
  const db = new SQLite(file, { fileMustExist: true, readonly });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}

/**
 * Copies the database at DATABASE_URL into `target` with SQLite's online backup API while `serve` keeps writing: the
 * copy is one read snapshot, so it holds every write committed before it began. `target` is created 0600 (it holds
 * every org's data) and never overwritten.
 */
export async function backupDatabase(databaseUrl: string, gatewaySecret: string | undefined, target: string): Promise<BackupOutcome> {
  const database = sqliteFileOf(databaseUrl);
  if (!existsSync(database)) throw new ConfigError(`no database at ${database} (DATABASE_URL)`);
  const file = resolve(target);
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    if (code === 'EEXIST') throw new ConfigError(`${file} exists: a backup never overwrites a file, name a new one`);
    throw new ConfigError(`cannot create ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const source = open(database, false);
  try {
    const { totalPages } = await source.backup(file, { progress: () => ALL_PAGES });
    return { database, file, pages: totalPages, secretFile: secretFileOf(database, gatewaySecret) };
  } catch (err) {
    rmSync(file, { force: true });
    throw err;
  } finally {
    source.close();
  }
}

export interface RestoreOutcome {
  database: string;
  file: string;
  pages: number;
  secretFile: string | null;
}

/** Why `file` cannot be restored, or undefined: it must be a whole SQLite database the gateway made. */
function refusalOf(file: string): string | undefined {
  let db: SQLite.Database;
  try {
    db = open(file, true);
  } catch (err) {
    return `${file} cannot be opened as a SQLite database: ${err instanceof Error ? err.message : String(err)}`;
  }
  try {
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') return `${file} fails PRAGMA integrity_check (${String(check)})`;
    const registry = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'gateway_instances'").get();
    return registry === undefined ? `${file} is not a gateway database (it has no gateway_instances table)` : undefined;
  } catch (err) {
    return `${file} is not a SQLite database: ${err instanceof Error ? err.message : String(err)}`;
  } finally {
    db.close();
  }
}

/** The instances that beat on `database` within `ttlMs` (a `serve` registers at start and beats every ttl / 4). */
async function liveInstances(database: string, ttlMs: number): Promise<string[]> {
  if (!existsSync(database)) return [];
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: open(database, true) }) });
  try {
    const registry = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = 'gateway_instances'`.execute(db);
    if (registry.rows.length === 0) return [];
    return (await liveIds(db, 'sqlite', ttlMs).execute()).map((r) => r.id);
  } finally {
    await db.destroy();
  }
}

/**
 * Puts the backup `source` in place of the database at DATABASE_URL through the backup API (the -wal beside the
 * database stays consistent), refusing while a gateway process heartbeats on it. The instances the backup lists were
 * the processes running when it was taken: none runs now, so they are forgotten and what they held is free at once.
 */
export async function restoreDatabase(databaseUrl: string, gatewaySecret: string | undefined, source: string, instanceTtlMs: number): Promise<RestoreOutcome> {
  const database = sqliteFileOf(databaseUrl);
  const file = resolve(source);
  if (!existsSync(file)) throw new ConfigError(`no backup at ${file}`);
  if (file === database) throw new ConfigError(`${file} is the database itself: name a backup file`);
  const refusal = refusalOf(file);
  if (refusal !== undefined) throw new ConfigError(`will not restore: ${refusal}`);
  const live = await liveInstances(database, instanceTtlMs);
  if (live.length > 0) {
    throw new ConfigError(`a gateway is running on ${database} (${live.length} live instance(s) in gateway_instances, e.g. ${live[0]}): stop every serve process first`);
  }
  // Made 0600 if absent, as the gateway makes its database: the backup API would leave it to the umask.
  mkdirSync(dirname(database), { recursive: true });
  try {
    closeSync(openSync(database, 'wx', 0o600));
  } catch (err) {
    if (!(err instanceof Error && 'code' in err && err.code === 'EEXIST')) throw err;
  }
  const backup = open(file, true);
  let pages: number;
  try {
    ({ totalPages: pages } = await backup.backup(database, { progress: () => ALL_PAGES }));
  } finally {
    backup.close();
  }
  const restored = open(database, false);
  try {
    restored.prepare('delete from gateway_instances').run();
  } finally {
    restored.close();
  }
  return { database, file, pages, secretFile: secretFileOf(database, gatewaySecret) };
}
