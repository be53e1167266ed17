import { z } from 'zod';
import { invalidInput } from './errors.js';

/** Opaque cursor: base64url JSON of the last row's sort key. */
function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor<T>(cursor: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through to the one error below
  }
  throw invalidInput('invalid cursor');
}

/** A page size: an integer (REST's query string is read as one by the door, MCP's argument must be one). */
export const limitParam = (max: number, fallback: number) => z.number().int().min(1).max(max).default(fallback);

/** Fetch one extra row to know whether there is a next page. */
export function page<T>(rows: T[], limit: number, cursorOf: (row: T) => unknown): { items: T[]; next_cursor: string | null } {
  if (rows.length <= limit) return { items: rows, next_cursor: null };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: last === undefined ? null : encodeCursor(cursorOf(last)) };
}
