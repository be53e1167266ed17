import { ConfigError, StartupError } from '../config-errors.js';
import { AppError } from '../platform/core/errors.js';
import { Interrupted } from './progress.js';

export interface OutputOptions {
  json?: boolean;
}

/** Prints a command's result: JSON with --json, otherwise the human rendering. */
export function print<T>(opts: OutputOptions, value: T, human: (v: T) => string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(value, null, 2)}\n` : `${human(value)}\n`);
}

/** Prints a list: with --json always `{ "<resource>": [...] }`, like the API's lists, so every list reads one way. */
export function printList<T>(opts: OutputOptions, resource: string, items: T[], human: (items: T[]) => string): void {
  process.stdout.write(opts.json ? `${JSON.stringify({ [resource]: items }, null, 2)}\n` : `${human(items)}\n`);
}

/** What a system error means to the operator, in one line (the address a listener could not take, a host that does not resolve). */
function systemFailure(err: Error & { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown }): string | undefined {
  const where = typeof err.address === 'string' ? `${err.address}${typeof err.port === 'number' ? `:${err.port}` : ''}` : undefined;
  switch (err.code) {
    case 'EADDRINUSE':
      return `${where ?? 'the address'} is already in use: stop what holds it, or pick another port`;
    case 'EADDRNOTAVAIL':
      return `${where ?? 'the address'} is not an address of this machine: pick another host`;
    case 'EACCES':
      return `not allowed: ${err.message}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${typeof err.hostname === 'string' ? err.hostname : ''} does not resolve: check its spelling`;
    default:
      return undefined;
  }
}

/** A failure as the one line the operator sees. */
export function failureLine(err: unknown): string {
  if (err instanceof AppError || err instanceof ConfigError || err instanceof StartupError) return err.message;
  if (err instanceof Error) return systemFailure(err) ?? `${err.message} (LOG_LEVEL=debug shows where)`;
  return String(err);
}

const debugging = (): boolean => process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';

/** Runs a command body; any failure becomes one line on stderr and exit code 1 (its stack only with LOG_LEVEL=debug). */
export function run<A extends unknown[]>(body: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await body(...args);
    } catch (err) {
      if (err instanceof Interrupted) {
        // The conventional code of a process ended by SIGINT (128 + 2).
        process.stderr.write(`${err.message}\n`);
        process.exitCode = 130;
        return;
      }
      process.stderr.write(`error: ${failureLine(err)}\n`);
      if (debugging() && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
      process.exitCode = 1;
    }
  };
}

/** Control characters, line and paragraph separators, bidi embeddings, overrides and isolates, and the BOM. */
const unprintable = (code: number): boolean =>
  code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0xfeff;
const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A value as one table cell: a character that would break the row, move the cursor or reorder the line is escaped (`\n`, `\u001b`). */
export function printable(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    out += unprintable(code) ? (NAMED_ESCAPES[ch] ?? `\\u${code.toString(16).padStart(4, '0')}`) : ch;
  }
  return out;
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown): string => (v === null || v === undefined ? '-' : printable(typeof v === 'string' ? v : JSON.stringify(v)));
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
