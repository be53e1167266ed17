import type { NormalizedEvent } from '../providers/event.js';

/**
 * Where a connection's polling stands: per machine and data element (event type) the newest reading sent, the marks
 * (telematics_marks). A poll sends a reading only when it is newer than its own machine's mark for its element, so a
 * late machine or a machine added with older reports is judged against itself, never against the rest of the fleet.
 */
export type Marks = Map<string, string>;

/** What a connection read shows of its marks (per-machine marks are too many to show): written with them by each poll. */
export interface CursorSummary {
  snapshot_at: string | null;
  machines: number;
  oldest_mark: string | null;
  newest_mark: string | null;
}

export interface MarkRow {
  equipment_id: string;
  element: string;
  mark: string;
}

export const NO_CURSORS: CursorSummary = { snapshot_at: null, machines: 0, oldest_mark: null, newest_mark: null };

// NUL never occurs in an equipment id or an event type, so the pair splits back unambiguously.
const SEP = '\u0000';
const keyOf = (equipmentId: string, element: string): string => `${equipmentId}${SEP}${element}`;

export function marksOf(rows: readonly MarkRow[]): Marks {
  return new Map(rows.map((r) => [keyOf(r.equipment_id, r.element), r.mark]));
}

/** Marks as rows to store. */
export function rowsOf(marks: Marks): MarkRow[] {
  return [...marks].map(([key, mark]) => {
    const at = key.indexOf(SEP);
    return { equipment_id: key.slice(0, at), element: key.slice(at + 1), mark };
  });
}

/** Stored as milliseconds in UTC, so marks compare as text in SQL and as instants here whatever the vendor's fraction digits. */
const markOf = (observedAt: string): string => new Date(observedAt).toISOString();

export function isNew(marks: Marks, event: NormalizedEvent): boolean {
  const mark = marks.get(keyOf(event.equipment.id, event.type));
  return mark === undefined || markOf(event.observed_at) > mark;
}

/** Moves `moved` (the marks a poll will store) up to what a batch sent. */
export function advance(moved: Marks, events: readonly NormalizedEvent[]): void {
  for (const e of events) {
    const key = keyOf(e.equipment.id, e.type);
    const at = markOf(e.observed_at);
    const mark = moved.get(key);
    if (mark === undefined || at > mark) moved.set(key, at);
  }
}

/** The summary of the marks a poll started from with the ones it moved. */
export function summarize(from: Marks, moved: Marks, snapshotAt: string): CursorSummary {
  const machines = new Set<string>();
  let oldest: string | null = null;
  let newest: string | null = null;
  for (const marks of [from, moved]) {
    for (const [key, value] of marks) {
      machines.add(key.slice(0, key.indexOf(SEP)));
      const mark = moved.get(key) ?? value;
      if (oldest === null || mark < oldest) oldest = mark;
      if (newest === null || mark > newest) newest = mark;
    }
  }
  return { snapshot_at: snapshotAt, machines: machines.size, oldest_mark: oldest, newest_mark: newest };
}

/** The stored summary; a row from before per-machine marks (`{ snapshot_at, elements }`) tracks no machine yet. */
export function parseCursors(text: string | null): CursorSummary {
  if (text === null) return NO_CURSORS;
  const value = JSON.parse(text) as Partial<CursorSummary>;
  return { snapshot_at: value.snapshot_at ?? null, machines: value.machines ?? 0, oldest_mark: value.oldest_mark ?? null, newest_mark: value.newest_mark ?? null };
}
