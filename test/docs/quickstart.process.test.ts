import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, requireBuild } from '../platform/outbox/process-support.js';
import { waitFor } from '../support/wait-for.js';
import { blockAfter, matchesShape, stepsOf } from './markdown.js';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const STEP_END = '@@quickstart-step-end@@';

interface Started {
  child: ChildProcess;
  out: () => string;
}

/** A long-running README line in a shell, as a terminal would run it, in the newcomer's folder (bash execs a lone command: signals reach it). */
function startLine(line: string, cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out };
}

/** A script in bash with no stdin: with a socket there (a test runner's pipe) bash would read ~/.bashrc first. */
async function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

async function stop(p: Started | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((resolve) => p.child.once('exit', resolve));
  p.child.kill('SIGTERM');
  await exited;
}

async function hasCurl(): Promise<boolean> {
  try {
    await exec('curl', ['--version']);
    return true;
  } catch {
    return false;
  }
}

// The quickstart runs the embedded default: the PostgreSQL pass of CI has nothing to add to it.
const otherPass = process.env.TEST_DIALECTS !== undefined && !process.env.TEST_DIALECTS.split(',').includes('sqlite');

describe.skipIf(otherPass)("README's quickstart, run as written", () => {
  // A newcomer's folder: `./bin/gateway` and `./data` where the README expects them, the clone untouched.
  const cwd = mkdtempSync(join(tmpdir(), 'gateway-quickstart-'));
  let hubPort: number;
  let gatewayPort: number;
  let hub: Started | undefined;
  let gateway: Started | undefined;
  // Only PATH from the caller, as in a fresh terminal; the README's fixed ports become free ones.
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: cwd, PORT: String(gatewayPort), HUB_TIMEOUT_MS: '15000' });
  const ports = (text: string) => text.replaceAll('127.0.0.1:8090', `127.0.0.1:${hubPort}`).replaceAll('127.0.0.1:8080', `127.0.0.1:${gatewayPort}`);

  beforeAll(async () => {
    requireBuild();
    symlinkSync(join(ROOT, 'bin'), join(cwd, 'bin'));
    hubPort = await freePort();
    gatewayPort = await freePort();
  });

  afterAll(async () => {
    await stop(gateway);
    await stop(hub);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('terminal 1: the hub simulator starts and says where it listens', async () => {
    const [step] = stepsOf(blockAfter(README, 'quickstart:hub-sim'));
    expect(step?.command).toBe('./bin/gateway hub-sim');
    hub = startLine(`${step?.command ?? ''} --port ${hubPort}`, cwd, env());
    const line = await waitFor(() => hub?.out().split('\n').find((l) => l.includes('listening')), { what: 'the hub simulator', timeoutMs: 60_000 });
    expect(matchesShape(line, ports(step?.expected ?? '')), line).toBe(true);
  }, 90_000);

  it('terminal 2: the gateway starts on SQLite, sending its events to the hub simulator', async () => {
    const [step] = stepsOf(blockAfter(README, 'quickstart:serve'));
    expect(step?.command).toMatch(/ npm start$/);
    // `npm start` serves what `npm ci` built: the test runs the same entry point without npm.
    gateway = startLine(ports(step?.command ?? '').replace(/npm start$/, './bin/gateway serve'), cwd, env());
    const line = await waitFor(
      () => {
        if (gateway?.child.exitCode !== null) throw new Error(`serve exited: ${gateway?.out() ?? ''}`);
        return gateway.out().split('\n').find((l) => l.includes('listening on'));
      },
      { what: 'the gateway', timeoutMs: 60_000 },
    );
    expect(matchesShape(line, ports(step?.expected ?? '')), line).toBe(true);
  }, 90_000);

  it('terminal 3: every command answers as the README shows, and the order reaches the hub simulator', async (ctx) => {
    if (!(await hasCurl())) return ctx.skip('curl is not installed');
    const steps = stepsOf(ports(blockAfter(README, 'quickstart:run')));
    expect(steps.length).toBeGreaterThanOrEqual(6);
    const script = steps.map((s) => `${s.command}\necho ${STEP_END}`).join('\n');
    const { stdout, code, stderr } = await runScript(`set -eu\n${script}`, cwd, env());
    expect(code, stderr).toBe(0);
    const answers = stdout.split(`${STEP_END}\n`);
    steps.forEach((step, i) => {
      const answer = answers[i] ?? '';
      if (step.expected === undefined) return;
      const shown = step.expected.startsWith('{') ? answer.trim() : (answer.trim().split('\n')[0] ?? '');
      expect(matchesShape(shown, step.expected), `${step.command}\nanswered: ${answer.slice(0, 600)}`).toBe(true);
    });
    expect(stdout).toContain('"type":"order.created"');
  }, 90_000);
});
