import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/wait-for.js';
import { freePort, mainJs, requireBuild } from '../outbox/process-support.js';

describe('the access log of a serve process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-access-log-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `serve` logging at info on its own database, up and answering; `stdout()` is all it has written so far. */
  async function startServe(name: string): Promise<{ child: ChildProcessByStdio<null, Readable, Readable>; base: string; stdout: () => string }> {
    requireBuild();
    const port = await freePort();
    const child = spawn(process.execPath, [mainJs, 'serve'], {
      env: { PATH: process.env.PATH, PORT: String(port), DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}`, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok === true, { what: 'serve to come up', timeoutMs: 20_000 });
    } catch (err) {
      child.kill('SIGTERM');
      throw err;
    }
    return { child, base, stdout: () => stdout };
  }

  // The log stream is buffered (a write per 4 KB, not per line): on a quiet gateway a line must still come out soon.
  it('writes a quiet gateway\'s lines within a few seconds, not when the buffer fills', { timeout: 30_000 }, async () => {
    const { child, base, stdout } = await startServe('quiet');
    try {
      // One request whose line is easy to find (/healthz refuses query parameters, so the marker is a path: a 404).
      expect((await fetch(`${base}/quiet-line`)).status).toBe(404);
      await waitFor(() => stdout().includes('quiet-line'), { what: 'the access line on stdout', timeoutMs: 5_000 });
      const line = stdout().split('\n').find((l) => l.includes('quiet-line') && l.includes('request completed'));
      expect(line && JSON.parse(line)).toMatchObject({ msg: 'request completed', method: 'GET', status: 404 });
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
  });

  // Under its 4 KB write size and its one-second flush: the lines left in the buffer come out as serve stops.
  it('writes every line still buffered when serve is stopped', { timeout: 30_000 }, async () => {
    const { child, base, stdout } = await startServe('stop');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const paths = Array.from({ length: 300 }, (_, i) => `/stop-line-${i}`);
      for (const path of paths) expect((await fetch(`${base}${path}`)).status).toBe(404);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const logged = new Set(stdout().split('\n').filter((l) => l.includes('request completed')).map((l) => (JSON.parse(l) as { url: string }).url));
      expect(paths.filter((path) => !logged.has(path))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
