import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export interface CliStartupRow {
  command: string;
  medianMs: number;
}

export interface CliStartupBench {
  runs: number;
  baselineMs: number;
  rows: CliStartupRow[];
}

/** The commands timed: the top level, a core command, the heaviest groups' help, and --version. */
const COMMANDS = [['--version'], ['--help'], ['keys', 'create', '--help'], ['partners', 'profile', '--help'], ['connections', '--help'], ['demo', '--help']];

function medianMs(argv: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, argv, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`node ${argv.join(' ')} exited with ${String(result.status)}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/** Wall-clock time of `gateway <command>` against a bare `node -e 0`, each the median of `runs` runs, interleaved by command. */
export function benchCliStartup(root: string, runs = 15): CliStartupBench {
  const main = join(root, 'dist/src/main.js');
  const baselineMs = medianMs(['-e', '0'], runs);
  const rows = COMMANDS.map((args) => ({ command: `gateway ${args.join(' ')}`, medianMs: medianMs([main, ...args], runs) }));
  return { runs, baselineMs, rows };
}
