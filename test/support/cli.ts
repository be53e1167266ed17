import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

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
