import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainJs, requireBuild } from '../platform/outbox/process-support.js';
import { waitFor } from '../support/wait-for.js';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

const dir = mkdtempSync(join(tmpdir(), 'gw-startup-'));
/** Nothing from the caller's environment but PATH: each case sets what it is about. */
const baseEnv = { PATH: process.env.PATH, LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${join(dir, 'db', 'gateway.sqlite')}` };

function gateway(env: Record<string, string | undefined>, ...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [mainJs, ...args], { env: { ...baseEnv, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** A failure as the operator sees it: exit code 1 and exactly one line on stderr, no stack. */
function expectOneLine(result: Result, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

interface Running {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string | undefined>, ...args: string[]): Running {
  const child = spawn(process.execPath, [mainJs, ...args], { env: { ...baseEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exited };
}

// Each case spawns the CLI a few times: on a busy machine that takes a while (an outcome is checked, never a time).
describe('start-up failures and the CLI entry', { timeout: 120_000 }, () => {
  let held: Server;
  let heldPort: number;

  beforeAll(async () => {
    requireBuild();
    held = createServer();
    heldPort = await new Promise<number>((resolve) => held.listen(0, '127.0.0.1', () => resolve((held.address() as { port: number }).port)));
  });
  afterAll(async () => {
    await new Promise((resolve) => held.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    const out = await gateway({}, '--version');
    expect(out.code).toBe(0);
    expect(out.stdout.trim()).toBe(pkg.version);
  });

  it('refuses DATABASE_URL=sqlite: without a path', async () => {
    expectOneLine(await gateway({ DATABASE_URL: 'sqlite:' }, 'orgs', 'list'), /^error: invalid configuration: DATABASE_URL: sqlite: needs a file path/);
    expectOneLine(await gateway({ DATABASE_URL: 'sqlite:' }, 'serve'), /DATABASE_URL: sqlite: needs a file path/);
  });

  it('refuses a database folder that does not exist, creating nothing, unless migrate or serve --create asks', async () => {
    const typo = join(dir, 'tyop', 'deeper');
    const env = { DATABASE_URL: `sqlite:${join(typo, 'gateway.sqlite')}` };
    expectOneLine(await gateway(env, 'orgs', 'list'), /^error: the folder of DATABASE_URL does not exist: .*tyop\/deeper; .*gateway migrate/);
    expectOneLine(await gateway(env, 'serve'), /the folder of DATABASE_URL does not exist/);
    expect(existsSync(join(dir, 'tyop'))).toBe(false);

    const migrated = await gateway(env, 'migrate', '--json');
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(existsSync(join(typo, 'gateway.secret'))).toBe(true);
    const listed = await gateway(env, 'orgs', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual({ orgs: [] });
  });

  it('serve --create makes the folder and serves; --json prints the listening line as JSON', async () => {
    const folder = join(dir, 'fresh');
    const served = start({ DATABASE_URL: `sqlite:${join(folder, 'gateway.sqlite')}`, PORT: '0' }, 'serve', '--create', '--json');
    try {
      const line = await waitFor(() => served.out().split('\n')[0]?.endsWith('}') && served.out().split('\n')[0], { what: 'the listening line' });
      const listening = JSON.parse(line) as { listening: string; service: string; database: string };
      expect(listening).toMatchObject({ service: 'tire-gateway', database: `sqlite:${join(folder, 'gateway.sqlite')}` });
      expect((await fetch(`${listening.listening}/healthz`)).status).toBe(200);
      expect(existsSync(join(folder, 'gateway.sqlite'))).toBe(true);
    } finally {
      served.child.kill('SIGTERM');
    }
    expect(await served.exited).toBe(0);
  });

  it('says which port is in use and how to pick another', async () => {
    await gateway({}, 'migrate');
    expectOneLine(await gateway({ PORT: String(heldPort) }, 'serve'), new RegExp(`^error: port ${heldPort} on 127\\.0\\.0\\.1 is already in use: .*PORT=`));
  });

  it('says a HOST does not resolve', async () => {
    expectOneLine(await gateway({ HOST: 'no-such-host.invalid', PORT: '0' }, 'serve'), /^error: HOST no-such-host\.invalid does not resolve/);
  });

  it('refuses an outbox lease that a delivery timeout can outlast, naming both settings', async () => {
    await gateway({}, 'migrate');
    expectOneLine(await gateway({ OUTBOX_LEASE_MS: '5000', HUB_BATCH_TIMEOUT_MS: '4000', PORT: '0' }, 'serve'), /^error: invalid configuration: OUTBOX_LEASE_MS \(5000\) must be longer than WEBHOOK_TIMEOUT_MS \(10000\)/);
    expectOneLine(await gateway({ WEBHOOK_TIMEOUT_MS: '60000', PORT: '0' }, 'serve'), /^error: invalid configuration: OUTBOX_LEASE_MS \(60000\) must be longer than WEBHOOK_TIMEOUT_MS \(60000\)/);
    expectOneLine(await gateway({ HUB_BATCH_TIMEOUT_MS: '60000', PORT: '0' }, 'serve'), /^error: invalid configuration: OUTBOX_LEASE_MS must be longer than HUB_BATCH_TIMEOUT_MS and HUB_TIMEOUT_MS/);
  });

  it('reports a failed command in one line and exit code 1', async () => {
    expectOneLine(await gateway({}, 'keys', 'create', '--org', 'ghost', '--scopes', 'all'), /^error: org ghost not found/);
    expectOneLine(await gateway({}, 'objects', 'define', '--org', 'ghost', '--file', join(dir, 'none.yaml')), /^error: cannot read /);
    expectOneLine(await gateway({ PORT: 'eighty' }, 'serve'), /^error: invalid configuration: PORT/);
  });
});

// The demo runs the embedded default: the PostgreSQL pass has nothing to add to it.
const otherPass = process.env.TEST_DIALECTS !== undefined && !process.env.TEST_DIALECTS.split(',').includes('sqlite');

describe.skipIf(otherPass)('demo --json', { timeout: 120_000 }, () => {
  it('prints its keys and URLs as one JSON object that works', async () => {
    const dataDir = join(dir, 'demo');
    const demo = start({ LOG_LEVEL: 'warn' }, 'demo', '--port', '0', '--data-dir', dataDir, '--json');
    try {
      const ready = await waitFor(() => {
        try {
          return JSON.parse(demo.out()) as Record<string, string>;
        } catch {
          return undefined;
        }
      }, { what: 'the demo JSON', timeoutMs: 60_000 });
      expect(Object.keys(ready).sort()).toEqual(
        ['admin_token', 'api_key', 'connection_id', 'data_dir', 'gateway_url', 'hub_url', 'mcp_url', 'org', 'po_850_file', 'portal_demo_url', 'portal_key', 'vendor_url', 'webhook_receiver'],
      );
      const products = await fetch(`${ready.gateway_url}/v1/products`, { headers: { authorization: `Bearer ${ready.api_key}` } });
      expect(products.status).toBe(200);
      expect((await fetch(`${ready.hub_url}/v1/events`)).status).toBe(200);
    } finally {
      demo.child.kill('SIGINT');
    }
    expect(await demo.exited).toBe(0);
  });
});
