import { invalidInput, paramOf } from './errors.js';

/**
 * How deep a request's JSON may nest (objects and arrays): far beyond any operation's own shape (an order's shipment
 * packs are 5), and shallow enough that every walk of the input (schemas, checks, the idempotency fingerprint) is safe.
 */
export const MAX_INPUT_DEPTH = 64;

/** The path of the first value nested deeper than `max`, found without recursion; undefined when there is none. */
export function findTooDeep(value: unknown, max = MAX_INPUT_DEPTH): (string | number)[] | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.value === null || typeof next.value !== 'object' || Buffer.isBuffer(next.value)) continue;
    if (next.path.length >= max) return next.path;
    for (const [key, item] of Object.entries(next.value)) stack.push({ value: item, path: [...next.path, Array.isArray(next.value) ? Number(key) : key] });
  }
  return undefined;
}

/** The 400 for input nested deeper than MAX_INPUT_DEPTH, naming where under `label` (`body.rows.0.make`). */
export function assertDepth(value: unknown, label: string): void {
  const path = findTooDeep(value);
  if (path !== undefined) throw invalidInput(`${[label, ...path].join('.')}: nested deeper than ${MAX_INPUT_DEPTH} levels`, undefined, paramOf(path));
}
