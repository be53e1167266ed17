import type { ReadIssueKind } from '../providers/reader.js';

/** One kind of thing polls read and could not use, per detail (an element, a unit, a machine, a URL path). */
export interface ConnectionIssue {
  kind: ReadIssueKind;
  detail: string;
  count: number;
  first_seen: string;
  last_seen: string;
}

/** Entries kept per connection, the most recently seen: a feed with endless distinct details cannot grow the row. */
export const MAX_ISSUES = 50;
/** A detail is a name or a path, cut to this length. */
const MAX_DETAIL = 200;

/** Counts what one poll came across (the readers' `ctx.report`, the poll's own refusals), in memory until the poll ends. */
export class IssueTally {
  private readonly counts = new Map<string, { kind: ReadIssueKind; detail: string; count: number }>();

  readonly report = (kind: ReadIssueKind, detail: string): void => {
    const cut = detail.slice(0, MAX_DETAIL);
    const key = JSON.stringify([kind, cut]);
    const seen = this.counts.get(key);
    if (seen === undefined) this.counts.set(key, { kind, detail: cut, count: 1 });
    else seen.count += 1;
  };

  get empty(): boolean {
    return this.counts.size === 0;
  }

  /** The stored list with this poll's counts added, seen at `at`; most recently seen first, at most MAX_ISSUES. */
  mergeInto(stored: string | null, at: string): string {
    const list = parseIssues(stored);
    const byKey = new Map(list.map((i) => [JSON.stringify([i.kind, i.detail]), i]));
    for (const [key, { kind, detail, count }] of this.counts) {
      const old = byKey.get(key);
      byKey.set(key, old === undefined ? { kind, detail, count, first_seen: at, last_seen: at } : { ...old, count: old.count + count, last_seen: at });
    }
    const merged = [...byKey.values()].sort((a, b) => (a.last_seen === b.last_seen ? b.count - a.count : a.last_seen < b.last_seen ? 1 : -1));
    return JSON.stringify(merged.slice(0, MAX_ISSUES));
  }
}

export function parseIssues(text: string | null): ConnectionIssue[] {
  return text === null ? [] : (JSON.parse(text) as ConnectionIssue[]);
}
