import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createGateway, type Gateway } from '../src/gateway.js';

export const root = new URL('../../', import.meta.url).pathname;
export const gatewayBin = join(root, 'bin/gateway');

export interface LoadResult {
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** Responses received in the measured run. */
  requests: number;
  /** CPU (user + system) of the server process(es) under test per response, in µs; undefined when not sampled. */
  cpuUsPerRequest?: number;
  /** CPU of every `postgres` process on this machine per response, in µs; undefined when not sampled. */
  dbCpuUsPerRequest?: number;
  /** CPU of the load generator itself per response, in µs (wrk reports its own); undefined when not known. */
  generatorCpuUsPerRequest?: number;
}

/** What a load run samples CPU of: the server processes under test and, for PostgreSQL runs, the database's own processes. */
export interface CpuProbe {
  pids: readonly number[];
  postgres?: boolean;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Clock ticks of /proc's stat files in µs. */
export const ticksToUs = (ticks: number): number => (ticks * 1e6) / CLK_TCK;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state, [11] utime, [12] stime. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // gone meanwhile
  }
}

/** CPU time (user + system) a process has used so far, in µs; with `thread`, that one thread's (its main thread: its pid). */
export function processCpuUs(pid: number, thread?: number): number {
  const f = statFields(thread === undefined ? pid : `${pid}/task/${thread}`);
  if (f === undefined) throw new Error(`process ${pid} is gone`);
  return ticksToUs(Number(f[11]) + Number(f[12]));
}

/**
 * CPU time of every `postgres` process on this machine (postmaster, backends, checkpointer, WAL writer…), in µs.
 * A backend that exits between two readings takes its time with it, so readings bracket runs whose pool stays open.
 */
export function postgresCpuUs(): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const f = statFields(entry);
    if (f !== undefined) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1e6) / CLK_TCK;
}

export function cpuReading(probe: CpuProbe | undefined): { server: number; db: number } | undefined {
  if (probe === undefined) return undefined;
  return { server: probe.pids.reduce((sum, pid) => sum + processCpuUs(pid), 0), db: probe.postgres ? postgresCpuUs() : 0 };
}

/** CPU per response between two readings (undefined fields when not sampled). */
export function perRequest(probe: CpuProbe | undefined, before: ReturnType<typeof cpuReading>, requests: number): Pick<LoadResult, 'cpuUsPerRequest' | 'dbCpuUsPerRequest'> {
  const after = cpuReading(probe);
  if (probe === undefined || before === undefined || after === undefined || requests === 0) return {};
  return {
    cpuUsPerRequest: (after.server - before.server) / requests,
    ...(probe.postgres ? { dbCpuUsPerRequest: (after.db - before.db) / requests } : {}),
  };
}

function figures(result: autocannon.Result): Omit<LoadResult, 'cpuUsPerRequest' | 'dbCpuUsPerRequest'> {
  return { requestsPerSec: result.requests.average, p99Ms: result.latency.p99, errors: result.errors, non2xx: result.non2xx, requests: result.requests.total };
}

/**
 * Drives a URL with autocannon and keeps the figures the reports use; with a probe, also the CPU the server
 * process(es) (and PostgreSQL) used during the run, per response.
 */
export async function load(opts: autocannon.Options, probe?: CpuProbe): Promise<LoadResult> {
  const before = cpuReading(probe);
  const result = await autocannon({ connections: 50, duration: 10, ...opts });
  const base = figures(result);
  return { ...base, ...perRequest(probe, before, base.requests) };
}

/**
 * Several autocannon instances at once (one per server process, say), as one run: requests/s summed, the worst p99,
 * CPU of every probed process over all responses. The connections are split between them (50 in all by default).
 */
export async function loadSpread(targets: autocannon.Options[], probe?: CpuProbe, connections = 50): Promise<LoadResult & { parts: LoadResult[] }> {
  const before = cpuReading(probe);
  const results = await Promise.all(
    targets.map((opts, i) => autocannon({ duration: 10, ...opts, connections: Math.floor(connections / targets.length) + (i < connections % targets.length ? 1 : 0) })),
  );
  const parts = results.map(figures);
  const sum = (pick: (r: (typeof parts)[number]) => number) => parts.reduce((s, r) => s + pick(r), 0);
  const requests = sum((r) => r.requests);
  return {
    requestsPerSec: sum((r) => r.requestsPerSec),
    p99Ms: Math.max(...parts.map((r) => r.p99Ms)),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
    requests,
    ...perRequest(probe, before, requests),
    parts,
  };
}

export async function waitForHttp(url: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The node process serving: bin/gateway `exec`s node, so it is the spawned pid itself; checked, not assumed. */
function nodePid(child: ChildProcess): number {
  const pid = child.pid;
  if (pid === undefined) throw new Error('the gateway did not start');
  const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  if (comm !== 'node') throw new Error(`process ${pid} is ${comm}, not node: bin/gateway no longer execs node, so its CPU would not be measured`);
  return pid;
}

export interface BenchGateway {
  url: string;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** The node process serving (for CPU readings). */
  pid: number;
  /** Runs the CLI against this gateway's database; returns stdout. */
  cli(...args: string[]): string;
  stop(): Promise<void>;
}

/**
 * A real `gateway serve` process, logging at info to nowhere, as in production minus the sink: on a fresh SQLite file,
 * or on the database `DATABASE_URL` in extraEnv names (migrated first; several processes may share one);
 * `nodeArgs` runs it under node with those options instead of through bin/gateway.
 */
export async function startGateway(extraEnv: NodeJS.ProcessEnv = {}, opts: { nodeArgs?: string[] } = {}): Promise<BenchGateway> {
  const port = await freePort();
  const databaseUrl = extraEnv.DATABASE_URL ?? `sqlite:${join(mkdtempSync(join(tmpdir(), 'gw-bench-')), 'bench.sqlite')}`;
  const env = { ...process.env, PORT: String(port), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...extraEnv, DATABASE_URL: databaseUrl };
  const cli = (...args: string[]) => execFileSync(gatewayBin, args, { env, encoding: 'utf8' });
  cli('migrate');
  // With node options (--cpu-prof…), node itself runs the entry point bin/gateway would.
  const child = opts.nodeArgs
    ? spawn(process.execPath, [...opts.nodeArgs, join(root, 'dist/src/main.js'), 'serve'], { env, stdio: 'ignore' })
    : spawn(gatewayBin, ['serve'], { env, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/healthz`);
    return { url, databaseUrl, env, pid: nodePid(child), cli, stop: () => stopChild(child) };
  } catch (err) {
    await stopChild(child);
    throw err;
  }
}

/** Creates the bench org and an all-scopes key with a rate limit out of the way; returns the request headers. */
export function benchKey(gw: BenchGateway): Record<string, string> {
  gw.cli('orgs', 'create', 'bench');
  const { key } = JSON.parse(gw.cli('keys', 'create', '--org', 'bench', '--scopes', 'all', '--rate-limit', '100000000', '--json')) as { key: string };
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
}

/** Creates products through the API (status 201 each). */
export async function seedProducts(url: string, headers: Record<string, string>, skus: readonly string[]): Promise<void> {
  for (const sku of skus) {
    const res = await fetch(`${url}/v1/products`, { method: 'POST', headers, body: JSON.stringify({ sku, name: `Bench ${sku}`, stock_qty: 40 }) });
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  }
}

export async function startBaseline(): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(root, 'dist/bench/baseline-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', () => reject(new Error('baseline server exited')));
  });
  return { url, pid: child.pid ?? 0, stop: () => stopChild(child) };
}

/** The vendor simulator in its own process (vendor-sim.child.ts), so its pages never stall the load generator's event loop. */
export async function startVendorSimProcess(fleetSize: number, pageSize: number): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(root, 'dist/bench/vendor-sim.child.js'), String(fleetSize), String(pageSize)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', () => reject(new Error('vendor simulator exited')));
  });
  return { url, stop: () => stopChild(child) };
}

/** The hub simulator in its own process, so it does not share a core with the load generator. */
export async function startHubSimProcess(): Promise<{ url: string; pid: number; stop(): Promise<void>; orderEvents(): Promise<number> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(root, 'dist/src/main.js'), 'hub-sim', '--port', String(port)], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', () => reject(new Error('hub simulator exited')));
  });
  const url = `http://127.0.0.1:${port}`;
  const orderEvents = async () => ((await (await fetch(`${url}/v1/events?type=order.created`)).json()) as { count: number }).count;
  return { url, pid: child.pid ?? 0, stop: () => stopChild(child), orderEvents };
}

/** The PostgreSQL server benchmarks use (`BENCH_DATABASE_URL`, a role that may create databases); undefined: PostgreSQL rows are skipped. */
export const benchPostgresUrl = (): string | undefined => process.env.BENCH_DATABASE_URL || undefined;

/** A fresh database `bench_<random>` on that server, so runs do not collide; drop() removes it (connections forced off). */
export async function createBenchDatabase(adminUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** What a PostgreSQL gateway needs besides its URL (a secret for its data keys). */
export const postgresEnv = (databaseUrl: string): NodeJS.ProcessEnv => ({ DATABASE_URL: databaseUrl, GATEWAY_SECRET: randomBytes(32).toString('hex') });

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * A gateway in this process on a fresh database: a temp SQLite file, or with a PostgreSQL URL a throwaway schema.
 * `close` closes it and drops the database.
 */
export async function inProcessGateway(name: string, databaseUrl?: string): Promise<{ gateway: Gateway; postgres: boolean; close(): Promise<void> }> {
  const postgres = databaseUrl?.startsWith('postgres') ?? false;
  const dir = mkdtempSync(join(tmpdir(), `gw-bench-${name}-`));
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const url = postgres && databaseUrl ? databaseUrl : `sqlite:${join(dir, `${name}.sqlite`)}`;
  const admin = postgres ? new pg.Client({ connectionString: url }) : undefined;
  if (admin) {
    await admin.connect();
    await admin.query(`create schema ${schema}`);
  }
  const config = loadConfig({ DATABASE_URL: url, GATEWAY_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
  const gateway = await createGateway(config, postgres ? { databaseSchema: schema } : {});
  return {
    gateway,
    postgres,
    close: async () => {
      await gateway.close();
      if (admin) {
        await admin.query(`drop schema if exists ${schema} cascade`);
        await admin.end();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
