import { invalidInput } from './errors.js';

const MAX_DEPTH = 32;

/** Where a string breaks the rule (a dotted path such as `body.lines.0.sku`) and what is wrong with it. */
interface UnsafeText {
  path: string;
  problem: string;
}

/** `isWellFormed` is Node 20's (ES2024); the project's TypeScript lib stops at ES2023. */
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(s: string): string | undefined {
  if (s.includes('\u0000')) return 'the NUL character (U+0000) is not allowed';
  if (isWellFormed(s)) return undefined;
  const lone = LONE_SURROGATE.exec(s)?.[0] ?? '';
  return `lone UTF-16 surrogate (\\u${lone.charCodeAt(0).toString(16)}) is not allowed`;
}

/** The dotted path of `keys` under `label`, as the walk names a place; built only for a problem found. */
function dotted(label: string, keys: readonly string[]): string {
  let path = label;
  for (const key of keys) path = path ? `${path}.${key}` : key;
  return path;
}

/** `keys` is the path so far, pushed and popped as the walk goes: no path string is made per value visited. */
function walk(value: unknown, label: string, keys: string[]): UnsafeText | undefined {
  if (typeof value === 'string') {
    const problem = problemOf(value);
    return problem ? { path: dotted(label, keys) || '(value)', problem } : undefined;
  }
  if (value === null || typeof value !== 'object' || keys.length > MAX_DEPTH || Buffer.isBuffer(value)) return undefined;
  const container = value as Record<string, unknown>;
  for (const key of Object.keys(container)) {
    const keyProblem = problemOf(key);
    if (keyProblem) {
      const path = dotted(label, keys);
      return { path: `${path}${path ? '.' : ''}(key)`, problem: keyProblem };
    }
    keys.push(key);
    const found = walk(container[key], label, keys);
    keys.pop();
    if (found) return found;
  }
  return undefined;
}

/**
 * The first string (or object key) in a parsed value that holds U+0000 or a lone UTF-16 surrogate, with its dotted
 * path under `label`; undefined when there is none. Neither survives storage on both dialects (PostgreSQL text
 * refuses NUL; a lone surrogate becomes U+FFFD when encoded as UTF-8), so both are refused at the door.
 */
export function findUnsafeText(value: unknown, label = ''): UnsafeText | undefined {
  return walk(value, label, []);
}

/** The same rule as a 400 naming where: the invoker checks every operation's input with it, on both doors. */
export function assertNoNul(value: unknown, label: string): void {
  const found = walk(value, label, []);
  if (found) throw unsafeTextError(found);
}

const unsafeTextError = (found: UnsafeText) => invalidInput(`${found.path}: ${found.problem}`);
