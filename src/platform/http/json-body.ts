import { AppError, invalidInput } from '../core/errors.js';

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

/**
 * A JSON request body: UTF-8 only (415 for another charset, which would be read wrongly), an empty body is no body
 * (the operation then says whether it needs one), a syntax error or a prototype key is a 400 that says what is wrong.
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
  if (NEEDS_WALK.test(text)) {
    const key = findPollutingKey(value, 'body', 0);
    if (key) throw invalidInput(`${key}: the key is not allowed (it would change object prototypes)`);
  }
  return value;
}
