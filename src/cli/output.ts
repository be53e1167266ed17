import { ConfigError, StartupError } from '../config.js';
import { AppError } from '../platform/core/errors.js';

export interface OutputOptions {
  json?: boolean;
}

/** Prints a command's result: JSON with --json, otherwise the human rendering. */
export function print<T>(opts: OutputOptions, value: T, human: (v: T) => string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(value, null, 2)}\n` : `${human(value)}\n`);
}

/** Runs a command body; a known failure becomes one clear line on stderr and exit code 1. */
export function run<A extends unknown[]>(body: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await body(...args);
    } catch (err) {
      if (err instanceof AppError || err instanceof ConfigError || err instanceof StartupError) {
        process.stderr.write(`error: ${err.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw err;
    }
  };
}

/**
 * A long job's progress on stderr (stdout keeps the result, JSON with --json): a line each time the count passes
 * another `step`, so a job of any size prints a bounded number of lines.
 */
export function progressLine(step: number, line: (done: number) => string): (done: number) => void {
  let shown = 0;
  return (done) => {
    if (Math.floor(done / step) <= Math.floor(shown / step)) return;
    shown = done;
    process.stderr.write(`${line(done)}\n`);
  };
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown): string => (v === null || v === undefined ? '-' : typeof v === 'string' ? v : JSON.stringify(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

/** Every page of a cursor-paged list, for commands that print all of it. */
export async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    all.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return all;
}
