import type { SetEntry } from './read-documents.js';

// An interchange is taken a slice of sets at a time, each slice its own transaction: on SQLite the one write
// connection is never held long, and other requests' writes (an order, a key revoked) go between slices. Inside a
// slice the sets are taken a pace at a time, each pace's 855s with it, and the request thread yields between paces.

/**
 * A set's weight: its segments, plus SET_WEIGHT for what every set costs whatever its size (its order, its document,
 * its 855 and their outbox rows). A pace (PACE_WEIGHT) is a few ms of work on this project's bench machine: three POs
 * of 43 lines, or eight of one line. A slice (SLICE_WEIGHT) ends in a commit, whose time grows with the slice: twice
 * and four times this weight made the 40,000-group POST faster (0.46 -> 0.48 and 0.44 MB/s on a busier run) but
 * raised the event loop's p99 during it (25 -> 27 and 33 ms; docs/decisions.md, "[16/20] EDI intake"). A set is never
 * split: a larger one is a slice of its own.
 */
export const PACE_WEIGHT = 500;
export const SLICE_WEIGHT = 750;
const SET_WEIGHT = 60;

export function weightOf(entry: SetEntry): number {
  return entry.set.segmentCount + SET_WEIGHT;
}

/** The sets in slices of about SLICE_WEIGHT, in order. */
export function* sliceSets(entries: readonly SetEntry[]): Generator<SetEntry[]> {
  let slice: SetEntry[] = [];
  let weight = 0;
  for (const entry of entries) {
    slice.push(entry);
    weight += weightOf(entry);
    if (weight >= SLICE_WEIGHT) {
      yield slice;
      slice = [];
      weight = 0;
    }
  }
  if (slice.length > 0) yield slice;
}
