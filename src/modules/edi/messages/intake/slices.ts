import type { SetEntry } from './read-documents.js';

// An interchange is taken a slice of sets at a time, each slice its own transaction: on SQLite the one write
// connection is never held long, and other requests' writes (an order, a key revoked) go between slices. Inside a
// slice the sets are taken a pace at a time with a yield between: reads (which never wait on the write connection)
// are answered meanwhile, and the slice's commit, SQLite's costliest step here, is paid once for several paces.

/**
 * A set's weight: its segments, plus SET_WEIGHT for what every set costs whatever its size (its order, its document,
 * its 855 and their outbox rows). A pace (PACE_WEIGHT) is a few ms of work on this project's bench machine: three POs
 * of 43 lines, or eight of one line; a slice (SLICE_WEIGHT) is six paces and one commit. A set is never split: a
 * larger one is a slice of its own.
 */
export const PACE_WEIGHT = 500;
export const SLICE_WEIGHT = 3000;
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
