import { invalidInput, paramOf } from './errors.js';

/**
 * How deep a request's JSON may nest (objects and arrays): far beyond any operation's own shape (an order's shipment
 * packs are 5), and shallow enough that every walk of the input (schemas, checks, the idempotency fingerprint) is safe.
 */
export const MAX_INPUT_DEPTH = 64;

/** An object or array still to look into, with how it was reached: the path is built only for the one reported. */
interface Frame {
  value: object;
  depth: number;
  key: string | number;
  parent: Frame | undefined;
}

const isNested = (value: unknown): value is object => value !== null && typeof value === 'object' && !Buffer.isBuffer(value);

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Frame = frame; at.parent !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** The path of the first value nested deeper than `max`, found without recursion; undefined when there is none. */
export function findTooDeep(value: unknown, max = MAX_INPUT_DEPTH): (string | number)[] | undefined {
  if (!isNested(value)) return undefined;
  // Runs on every request's input: leaves are never stacked and no path is copied per value.
  const stack: Frame[] = [{ value, depth: 0, key: '', parent: undefined }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.depth >= max) return pathOf(next);
    const container = next.value as Record<string, unknown>;
    const array = Array.isArray(container);
    for (const key of Object.keys(container)) {
      const item = container[key];
      if (isNested(item)) stack.push({ value: item, depth: next.depth + 1, key: array ? Number(key) : key, parent: next });
    }
  }
  return undefined;
}

/** The 400 for input nested deeper than MAX_INPUT_DEPTH, naming where under `label` (`body.rows.0.make`). */
export function assertDepth(value: unknown, label: string): void {
  const path = findTooDeep(value);
  if (path !== undefined) throw invalidInput(`${[label, ...path].join('.')}: nested deeper than ${MAX_INPUT_DEPTH} levels`, undefined, paramOf(path));
}
