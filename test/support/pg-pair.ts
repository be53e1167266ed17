import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../platform/outbox/process-support.js';
import { waitFor } from './wait-for.js';

const run = promisify(execFile);
const STANDBY_NAME = 'standby1';

/** The newest PostgreSQL server binaries on the machine (Debian's layout). */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return join(root, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, run its tools as the postgres user. */
function asPostgres(tool: string, args: string[]): Promise<{ stdout: string }> {
  const path = join(binDir(), tool);
  return process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

export interface PgServer {
  port: number;
  dir: string;
}

/** A primary and a synchronous standby of the test's own on loopback ports, in a temp folder. */
export interface PgPair {
  primary: PgServer;
  standby: PgServer;
  /** libpq-style URL naming both, the gateway's DATABASE_URL. */
  url: string;
  /** SIGKILL to the primary's postmaster: a crash, with no shutdown checkpoint and no goodbye to clients. */
  killPrimary(): Promise<void>;
  /** pg_ctl promote, waiting until the standby accepts writes. */
  promoteStandby(): Promise<void>;
  close(): Promise<void>;
}

/** The settings docs/operations.md shows for a synchronous standby. */
function primarySettings(port: number, socketDir: string): string {
  return [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${socketDir}'`,
    'wal_level = replica',
    'max_wal_senders = 4',
    'hot_standby = on',
    // A commit is acknowledged once the standby has flushed it too.
    `synchronous_standby_names = '${STANDBY_NAME}'`,
    'synchronous_commit = on',
    'max_connections = 60',
    '',
  ].join('\n');
}

export async function startPgPair(): Promise<PgPair> {
  const root = mkdtempSync(join(tmpdir(), 'gw-pg-pair-'));
  if (process.getuid?.() === 0) chownSync(root, Number((await run('id', ['-u', 'postgres'])).stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  const primary = { port: await freePort(), dir: join(root, 'primary') };
  const standby = { port: await freePort(), dir: join(root, 'standby') };
  const log = (s: PgServer) => `${s.dir}.log`;
  const start = (s: PgServer) => asPostgres('pg_ctl', ['-D', s.dir, '-l', log(s), '-w', '-t', '30', 'start']);

  await asPostgres('initdb', ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  appendFileSync(join(primary.dir, 'postgresql.conf'), primarySettings(primary.port, root));
  await start(primary);
  await asPostgres('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', standby.dir, '-R', '-X', 'stream', '--no-sync']);
  // -R wrote primary_conninfo and standby.signal; the later lines win: its own port, and the name the primary waits for.
  // Promoted, it has no standby of its own: with the primary's synchronous_standby_names every commit would wait forever.
  appendFileSync(
    join(standby.dir, 'postgresql.auto.conf'),
    `port = ${standby.port}\nprimary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${STANDBY_NAME}'\nsynchronous_standby_names = ''\n`,
  );
  await start(standby);

  const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write&connect_timeout=2`;
  const query = async (port: number, text: string) => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await c.connect();
    try {
      return (await c.query<Record<string, unknown>>(text)).rows;
    } finally {
      await c.end();
    }
  };
  await waitFor(async () => (await query(primary.port, 'select sync_state from pg_stat_replication')).some((r) => r.sync_state === 'sync'), {
    what: 'the standby streaming as the synchronous one',
    timeoutMs: 30_000,
  });

  let closed = false;
  return {
    primary,
    standby,
    url,
    killPrimary: async () => {
      const pid = Number(readFileSync(join(primary.dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      // Its backends notice the postmaster's death and exit; the port is free once they have.
      await waitFor(async () => !(await query(primary.port, 'select 1').then(() => true, () => false)), { what: 'the primary gone', timeoutMs: 30_000 });
    },
    promoteStandby: async () => {
      await asPostgres('pg_ctl', ['-D', standby.dir, '-w', '-t', '30', 'promote']);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const s of [standby, primary]) await asPostgres('pg_ctl', ['-D', s.dir, '-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
