import type { SetEntry } from './read-documents.js';
import type { IntakeDeps } from './received.js';

// An interchange is taken a slice of sets at a time, each slice its own transaction: on SQLite the one write
// connection is never held long, and other requests' writes (an order, a key revoked) go between slices.

/**
 * Segments per slice: about 30 ms of writes on this project's bench machine (orders of 50 lines at ~1 ms each, with
 * their documents and 855s). A set is never split: one larger than this is a slice of its own.
 */
export const SLICE_SEGMENTS = 1500;

/** Until when a process that takes (or renews) an interchange's lease now holds it (EDI_LEASE_MS). */
export function leaseEnd(deps: Pick<IntakeDeps, 'clock' | 'leaseMs'>): string {
  return new Date(deps.clock.now().getTime() + deps.leaseMs).toISOString();
}

/** The sets in slices of about SLICE_SEGMENTS segments, in order. */
export function* sliceSets(entries: readonly SetEntry[]): Generator<SetEntry[]> {
  let slice: SetEntry[] = [];
  let segments = 0;
  for (const entry of entries) {
    slice.push(entry);
    segments += entry.set.segmentCount;
    if (segments >= SLICE_SEGMENTS) {
      yield slice;
      slice = [];
      segments = 0;
    }
  }
  if (slice.length > 0) yield slice;
}
