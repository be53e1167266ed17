import { AppError, invalidInput, paramOf } from '../core/errors.js';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;
/** Only escapes can spell a lone surrogate or hide a key name in JSON text: bodies without them skip the walk. */
const NEEDS_WALK = /__proto__|constructor|\\u/;
const MAX_DEPTH = 64;

/** The first `__proto__` key (or `constructor.prototype`), as a dotted path: such keys pollute prototypes downstream. */
function findPollutingKey(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const here = path ? `${path}.${key}` : key;
    if (key === '__proto__') return here;
    if (key === 'constructor' && item !== null && typeof item === 'object' && Object.hasOwn(item, 'prototype')) return `${here}.prototype`;
    const found = findPollutingKey(item, here, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses a `__proto__` key (or `constructor.prototype`) anywhere in an already parsed JSON value, as a 400 naming
 * where. For bodies parsed elsewhere (the MCP transport's JSON-RPC), whose own parsing would drop the key silently.
 */
export function refusePollutingKeys(value: unknown, label: string): void {
  const key = findPollutingKey(value, label, 0);
  if (key) throw invalidInput(`${key}: the key is not allowed (it would change object prototypes)`);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

interface Frame {
  parent: Frame | undefined;
  /** The keys of an object seen so far; undefined for an array. */
  keys: Set<string> | undefined;
  /** The next array index, or whether the next string of an object is a key. */
  index: number;
  expectKey: boolean;
  /** The key whose value comes next. */
  key: string;
}

/** Where a frame's current member is, from the top: built only for the answer, so a deep text costs no copies. */
function pathOf(frame: Frame | undefined): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = frame; at !== undefined; at = at.parent) path.push(at.keys === undefined ? at.index : at.key);
  return path.reverse();
}

/** The index of the quote that closes the string opening at `start`, or -1; a quote after an odd run of backslashes is escaped. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    if (end === -1) return -1;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * The first key an object of well-formed JSON text repeats, as a path (`['lines', 0, 'sku']`). JSON.parse keeps the
 * last value silently, so `{"stock_qty":6,"stock_qty":-5}` would store -5 where a reader of the text may see 6.
 * One pass over the characters (strings skipped whole) with a linked stack of frames, never recursion: any depth
 * JSON.parse took is fine here.
 */
export function findDuplicateKey(text: string): (string | number)[] | undefined {
  let top: Frame | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      if (top?.keys !== undefined && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.keys.has(key)) return [...pathOf(top.parent), key];
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      top = { parent: top, keys: c === OPEN_OBJECT ? new Set() : undefined, index: 0, expectKey: true, key: '' };
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      top = top?.parent;
    } else if (c === COMMA && top !== undefined) {
      if (top.keys === undefined) top.index++;
      else top.expectKey = true;
    }
  }
  return undefined;
}

/**
 * The 400 for a repeated key, named by its path under `label` (`body.stock_qty`), `param` the field. Also for JSON text
 * parsed elsewhere (the MCP transport's JSON-RPC), whose parsing would take the last value as silently.
 */
export function refuseDuplicateKeys(text: string, label: string): void {
  const path = findDuplicateKey(text);
  if (path === undefined) return;
  const where = [label, ...path].join('.');
  throw invalidInput(`${where}: the key appears more than once (a JSON object must not repeat a key)`, [{ path: where, message: 'repeated key' }], paramOf(path));
}

/**
 * A JSON request body: UTF-8 only (415 for another charset, which would be read wrongly), an empty body is no body
 * (the operation then says whether it needs one), a syntax error, a repeated key or a prototype key is a 400 that says what is wrong.
 */
export function parseJsonBody(text: string, contentType: string | undefined): unknown {
  const charset = contentType === undefined ? undefined : CHARSET.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError('unsupported_media_type', `charset ${charset} is not supported: send JSON as UTF-8`);
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidInput(`body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  refuseDuplicateKeys(text, 'body');
  if (NEEDS_WALK.test(text)) {
    const key = findPollutingKey(value, 'body', 0);
    if (key) throw invalidInput(`${key}: the key is not allowed (it would change object prototypes)`);
  }
  return value;
}
