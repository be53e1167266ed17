import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const root = new URL('../../', import.meta.url).pathname;
const gatewayBin = join(root, 'bin/gateway');

export interface LoadResult {
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
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

/** Drives a URL with autocannon and keeps the figures the reports use. */
export async function load(opts: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 50, duration: 10, ...opts });
  return { requestsPerSec: result.requests.average, p99Ms: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
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

export interface BenchGateway {
  url: string;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** Runs the CLI against this gateway's database; returns stdout. */
  cli(...args: string[]): string;
  stop(): Promise<void>;
}

/** A real `gateway serve` process on a fresh SQLite file, logging at info to nowhere, as in production minus the sink. */
export async function startGateway(extraEnv: NodeJS.ProcessEnv = {}): Promise<BenchGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const port = await freePort();
  const databaseUrl = `sqlite:${join(dir, 'bench.sqlite')}`;
  const env = { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...extraEnv };
  const cli = (...args: string[]) => execFileSync(gatewayBin, args, { env, encoding: 'utf8' });
  cli('migrate');
  const child = spawn(gatewayBin, ['serve'], { env, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`);
  return { url, databaseUrl, env, cli, stop: () => stopChild(child) };
}

export async function startBaseline(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [join(root, 'dist/bench/baseline-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', () => reject(new Error('baseline server exited')));
  });
  return { url, stop: () => stopChild(child) };
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
