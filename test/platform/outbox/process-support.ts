import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { enqueueHubEvent } from '../../../src/platform/outbox/outbox.js';
import type { Harness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

export const mainJs = join(import.meta.dirname, '../../../dist/src/main.js');

/** These tests run the compiled CLI, as an operator would (`npm test` builds first). */
export function requireBuild(): void {
  if (!existsSync(mainJs)) throw new Error('dist/src/main.js is missing: run `npm run build` first');
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

/** The environment a child process needs to run on the harness's database (PostgreSQL: its schema via search_path). */
export function childEnv(h: Harness, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  let databaseUrl = h.databaseUrl;
  if (h.dialect === 'postgres' && h.databaseSchema) {
    const sep = databaseUrl.includes('?') ? '&' : '?';
    databaseUrl = `${databaseUrl}${sep}options=${encodeURIComponent(`-c search_path=${h.databaseSchema}`)}`;
  }
  return {
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET: h.config.GATEWAY_SECRET,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  kill(signal: NodeJS.Signals): Promise<void>;
  /** What the process logged so far, stdout (request logs) then stderr (its own logger); stdout only with `logs`. */
  logged(): string;
}

export interface ServeOptions {
  /** Keep the request log lines (stdout) as well as stderr, for a test that reads what a failed request logged. */
  logs?: boolean;
}

export async function startServe(env: NodeJS.ProcessEnv, opts: ServeOptions = {}): Promise<ServeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [mainJs, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', opts.logs ? 'pipe' : 'ignore', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${stderr}`);
      return (await fetch(`${url}/healthz`)).ok;
    },
    { what: 'serve to come up', timeoutMs: 30_000 },
  );
  return {
    child,
    url,
    logged: () => stdout + stderr,
    kill: (signal) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** A JSON POST over real HTTP to a serve process (`body` as is when it is already a string). */
export async function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

export async function enqueueEvents(h: Harness, orgId: string, n: number, prefix: string): Promise<string[]> {
  return h.gateway.database.db.transaction().execute(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await enqueueHubEvent(tx, { type: 'telematics.event', orgId, at: h.gateway.clock.now(), id: `${prefix}-${i}`, data: { reading: i } }));
    return ids;
  });
}

export async function statusCounts(h: Harness, idPrefix?: string): Promise<Record<string, number>> {
  let query = h.gateway.database.db.selectFrom('outbox').select(['status', (eb) => eb.fn.countAll<number>().as('n')]);
  // A suite's earlier cases leave their rows in the same schema: count only this case's when asked.
  if (idPrefix !== undefined) query = query.where('id', 'like', `${idPrefix}%`);
  const rows = await query.groupBy('status').execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
