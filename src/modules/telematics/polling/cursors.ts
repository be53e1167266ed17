import type { NormalizedEvent } from '../providers/event.js';

/**
 * Where a connection's polling stands: when the last snapshot was taken, and per data element (event type) the
 * latest reading sent. A poll sends only readings newer than their element's mark; a replay ignores the marks.
 */
export interface Cursors {
  snapshot_at: string | null;
  elements: Record<string, string>;
}

const NO_CURSORS: Cursors = { snapshot_at: null, elements: {} };

export function parseCursors(text: string | null): Cursors {
  if (text === null) return NO_CURSORS;
  const value = JSON.parse(text) as Partial<Cursors>;
  return { snapshot_at: value.snapshot_at ?? null, elements: value.elements ?? {} };
}

/** The oldest mark: readings before it are not read at all (the reader's `since`). */
export function readFrom(cursors: Cursors): Date | undefined {
  const marks = Object.values(cursors.elements);
  if (marks.length === 0) return undefined;
  return new Date(marks.reduce((min, m) => (m < min ? m : min)));
}

/** Compares ISO instants whatever their fraction digits (vendors send 0 to 7). */
const instant = (iso: string) => Date.parse(iso);

export function isNew(cursors: Cursors, event: NormalizedEvent): boolean {
  const mark = cursors.elements[event.type];
  return mark === undefined || instant(event.observed_at) > instant(mark);
}

/** The marks moved up to what a batch sent. */
export function advance(cursors: Cursors, events: readonly NormalizedEvent[]): Cursors {
  const elements = { ...cursors.elements };
  for (const e of events) {
    const mark = elements[e.type];
    if (mark === undefined || instant(e.observed_at) > instant(mark)) elements[e.type] = e.observed_at;
  }
  return { ...cursors, elements };
}
