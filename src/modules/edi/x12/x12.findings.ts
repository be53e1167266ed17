import type { FunctionalGroup, TransactionSet, X12Issue } from './x12.types.js';

/** Last index in `items` (ascending by key) whose key is <= p, or -1. */
function lastAtOrBefore<T>(items: readonly T[], key: (item: T) => number, p: number): number {
  let lo = 0;
  let hi = items.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const item = items[mid];
    if (item !== undefined && key(item) <= p) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

interface PlacedSet {
  group: FunctionalGroup;
  set: TransactionSet;
}

/** Every finding of an interchange filed under the group or set it belongs to. */
export interface Findings {
  /** Group-level findings of this group (AK905). */
  group(group: FunctionalGroup): X12Issue[];
  /** Set, segment and element findings of this set (AK5, AK3, AK4). */
  set(set: TransactionSet): X12Issue[];
}

/**
 * Files every finding under the group or set it belongs to, in one pass over the findings, so judging N groups and
 * sets costs N, not N x findings. Findings are keyed by the object they belong to, never by control number: a reused
 * GS06 or ST02 is itself a finding, and it belongs to the later group or set, not to the first one that number names.
 * The parser's and validator's findings carry `groupPosition`/`setPosition` (the GS/ST position, unique in the
 * interchange); a finding without them (a caller's own) is placed by its position: group findings from the GS up to
 * the next GS, set findings from the ST to one past its SE (a missing SE is reported there), segment and element
 * findings in ST..SE.
 */
export function indexFindings(groups: readonly FunctionalGroup[], issues: readonly X12Issue[]): Findings {
  // A clean interchange files nothing: no index of its groups and sets (60 ms on the request thread for 40,000 groups).
  if (issues.length === 0) return { group: () => [], set: () => [] };
  const byGroup = new Map<FunctionalGroup, X12Issue[]>();
  const bySet = new Map<TransactionSet, X12Issue[]>();
  const add = <K>(map: Map<K, X12Issue[]>, key: K, issue: X12Issue): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [issue]);
    else list.push(issue);
  };
  const groupAt = new Map<number, FunctionalGroup>();
  const setAt = new Map<number, PlacedSet>();
  const sets: PlacedSet[] = [];
  for (const group of groups) {
    groupAt.set(group.position, group);
    for (const set of group.transactionSets) {
      const placed = { group, set };
      setAt.set(set.position, placed);
      sets.push(placed);
    }
  }
  sets.sort((x, y) => x.set.position - y.set.position);
  const ordered = [...groups].sort((x, y) => x.position - y.position);

  const placeGroup = (issue: X12Issue): FunctionalGroup | undefined => {
    if (issue.groupPosition !== undefined) return groupAt.get(issue.groupPosition);
    const p = issue.position;
    if (p === undefined) return issue.groupControl === undefined ? undefined : groups.find((g) => g.controlNumber === issue.groupControl);
    // At a GS's position sit that GS's own findings and the missing-GE finding of the group before it.
    const t = lastAtOrBefore(ordered, (g) => g.position, p);
    const at = ordered[t];
    if (at !== undefined && at.position === p && issue.segmentId !== 'GS') return ordered[t - 1] ?? at;
    return at;
  };

  const placeSet = (issue: X12Issue): TransactionSet | undefined => {
    if (issue.setPosition !== undefined) return setAt.get(issue.setPosition)?.set;
    const p = issue.position;
    if (p === undefined) {
      const candidates = sets.filter((s) => s.set.controlNumber === issue.setControl && (issue.groupControl === undefined || s.group.controlNumber === issue.groupControl));
      return candidates[0]?.set;
    }
    const t = lastAtOrBefore(sets, (s) => s.set.position, p);
    const at = sets[t];
    if (at === undefined) return undefined;
    // A set-level finding at an ST's position is that ST's, but a missing SE is reported at the next segment (maybe an ST).
    const before = sets[t - 1];
    if (issue.level === 'set' && at.set.position === p && issue.segmentId === 'SE' && before !== undefined) return before.set;
    const end = at.set.position + at.set.segmentCount - (issue.level === 'set' ? 0 : 1);
    return p <= end ? at.set : undefined;
  };

  for (const issue of issues) {
    if (issue.level === 'group') {
      const group = placeGroup(issue);
      if (group !== undefined) add(byGroup, group, issue);
    } else if (issue.level === 'set' || issue.level === 'segment' || issue.level === 'element') {
      const set = placeSet(issue);
      if (set !== undefined) add(bySet, set, issue);
    }
  }
  return {
    group: (group) => byGroup.get(group) ?? [],
    set: (set) => bySet.get(set) ?? [],
  };
}
