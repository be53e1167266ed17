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

/**
 * `updated_since` / `created_since`: an ISO 8601 instant with a zone, turned into the stored form (UTC, milliseconds,
 * `Z`) so the text columns compare in time order.
 */
const instantParam = (what: string) =>
  z.iso
    .datetime({ offset: true, error: `${what} must be an ISO 8601 timestamp with a zone, e.g. 2026-06-01T12:00:00Z` })
    .transform((v) => new Date(v).toISOString());

/** The query parameters of a list a partner syncs incrementally; `created_since` only where `created` fits. */
export function sinceParams<C extends boolean>(created: C) {
  const updated = {
    updated_since: instantParam('updated_since')
      .optional()
      .describe('Only records changed at or after this instant (ISO 8601 with a zone); the list is then ordered by updated_at, oldest first.'),
  };
  const both = {
    ...updated,
    created_since: instantParam('created_since')
      .optional()
      .describe('Only records created at or after this instant (ISO 8601 with a zone); the list is then ordered by created_at, oldest first.'),
  };
  return (created ? both : updated) as C extends true ? typeof both : typeof updated;
}

/** For a list schema's refine: one sync order at a time. */
export const oneSince = (q: { updated_since?: string; created_since?: string }) => q.updated_since === undefined || q.created_since === undefined;
export const ONE_SINCE = { error: 'pass updated_since or created_since, not both', path: ['created_since'] };

/** A list asked for changes since an instant: rows with `column` >= since, by (column, tiebreak) ascending, after the cursor's row. */
export interface SinceWindow {
  column: 'updated_at' | 'created_at';
  since: string;
  after?: { at: string; id: string | number };
}

// The sync order's cursor names its column, so a cursor of another order (or of the other column) is refused.
const sinceCursor = z.strictObject({ f: z.enum(['updated_at', 'created_at']), t: z.string(), i: z.union([z.string(), z.number()]) });

/** The window a list's query asks for, or undefined for the list's usual order (whose cursor it then leaves to the caller). */
export function sinceWindowOf(query: { updated_since?: string; created_since?: string; cursor?: string }): SinceWindow | undefined {
  const column = query.updated_since !== undefined ? 'updated_at' : query.created_since !== undefined ? 'created_at' : undefined;
  const since = query.updated_since ?? query.created_since;
  if (column === undefined || since === undefined) return undefined;
  const after = decodeCursor(query.cursor, sinceCursor);
  if (after !== undefined && after.f !== column) throw invalidInput(`invalid cursor: it continues a list ordered by ${after.f}`);
  return { column, since, ...(after === undefined ? {} : { after: { at: after.t, id: after.i } }) };
}

/** One page in a sync order, its cursor the last row's (column, tiebreak). */
export function sincePage<T>(rows: T[], limit: number, window: SinceWindow, keyOf: (row: T) => { at: string; id: string | number }) {
  return page(rows, limit, (row) => {
    const { at, id } = keyOf(row);
    return { f: window.column, t: at, i: id };
  });
}
