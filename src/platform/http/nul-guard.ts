import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { invalidInput } from './errors.js';

const MAX_DEPTH = 32;

/** The first place a string holds U+0000, as a dotted path, or undefined. */
function findNul(value: unknown, path: string, depth: number): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(value)' : undefined;
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || Buffer.isBuffer(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return `${path}${path ? '.' : ''}(key)`;
    const found = findNul(item, path ? `${path}.${key}` : key, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can), so both dialects refuse it at the door with a 400 instead of
 * one of them failing at insert time. Raw byte bodies (X12) are stored as bytes and pass.
 */
export function rejectNulCharacters(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const where =
    findNul(request.params, 'path', 0) ?? findNul(request.query, 'query', 0) ?? (typeof request.body === 'string' ? undefined : findNul(request.body, 'body', 0));
  done(where ? nulError(where) : undefined);
}

/** The same rule for inputs that do not come through a route's body (MCP tool arguments). */
export function assertNoNul(value: unknown, label: string): void {
  const where = findNul(value, label, 0);
  if (where) throw nulError(where);
}

const nulError = (where: string) => invalidInput(`${where}: the NUL character (U+0000) is not allowed`);
