import type { SetEntry } from './read-documents.js';

// An interchange is taken a slice of sets at a time, each slice its own transaction: on SQLite the one write
// connection is never held long, and other requests' writes (an order, a key revoked) go between slices.

/**
 * A slice's weight: its segments, plus SET_WEIGHT per set for what every set costs whatever its size (its order, its
 * document, its 855 and their outbox rows). SLICE_WEIGHT is about 10-20 ms of writes on this project's bench machine:
 * five orders of 43 lines, or a dozen of one line. A set is never split: a larger one is a slice of its own.
 */
export const SLICE_WEIGHT = 750;
const SET_WEIGHT = 60;

/** The sets in slices of about SLICE_WEIGHT, in order. */
export function* sliceSets(entries: readonly SetEntry[]): Generator<SetEntry[]> {
  let slice: SetEntry[] = [];
  let weight = 0;
  for (const entry of entries) {
    slice.push(entry);
    weight += entry.set.segmentCount + SET_WEIGHT;
    if (weight >= SLICE_WEIGHT) {
      yield slice;
      slice = [];
      weight = 0;
    }
  }
  if (slice.length > 0) yield slice;
}
