import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Command } from 'commander';
import { afterAll, beforeAll, vi } from 'vitest';
import { registerAllCommands } from '../../src/cli/program.js';

const run = promisify(execFile);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (compiled by `npm test`'s pretest build) with `env`, returning its exit code and output. */
export function cliRunner(env: NodeJS.ProcessEnv): (...args: string[]) => Promise<CliResult> {
  return async (...args) => {
    try {
      const { stdout, stderr } = await run('./bin/gateway', args, { env });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as CliResult;
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
}

/**
 * The CLI run in this process against its own SQLite file, for tests that need many quick commands: registers the
 * suite's beforeAll/afterAll (DATABASE_URL and LOG_LEVEL set, then restored) and returns the runner. `watch.stderr`,
 * when set, sees each write to stderr as it happens (a test reacts to a progress line: Ctrl-C at a known point).
 */
export function useInProcessCli(name: string, watch: { stderr?: (chunk: string) => void } = {}): (...args: string[]) => Promise<CliResult> {
  const dir = mkdtempSync(join(tmpdir(), `gw-${name}-`));
  const env = { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL };
  beforeAll(() => {
    process.env.DATABASE_URL = `sqlite:${join(dir, 'cli.sqlite')}`;
    process.env.LOG_LEVEL = 'silent';
  });
  afterAll(() => {
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined) Reflect.deleteProperty(process.env, key);
      else process.env[key] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return async (...args) => {
    const program = await registerAllCommands(new Command().exitOverride());
    let stdout = '';
    let stderr = '';
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      watch.stderr?.(String(chunk));
      return true;
    });
    process.exitCode = 0;
    try {
      await program.parseAsync(['node', 'gateway', ...args]);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const code = Number(process.exitCode ?? 0);
    process.exitCode = 0;
    return { code, stdout, stderr };
  };
}
