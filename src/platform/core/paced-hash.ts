import type { Hash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';

/** Bytes hashed between two yields to the event loop: about a millisecond of SHA-256 on this project's machines. */
const PACE_BYTES = 512 * 1024;

/**
 * Feeds `data` to `hash` a slice at a time (each slice through `encode` when given), yielding between slices: a
 * 10 MB body never holds the request thread for the ~40 ms its hash takes at once. `slice` must suit `encode`
 * (a multiple of 3 for base64, so the pieces join into the whole's encoding).
 */
export async function updatePaced(hash: Hash, data: Buffer, slice: number, encode?: (piece: Buffer) => string): Promise<void> {
  let since = 0;
  for (let at = 0; at < data.length; at += slice) {
    const piece = data.subarray(at, at + slice);
    hash.update(encode === undefined ? piece : encode(piece));
    since += piece.length;
    if (since >= PACE_BYTES && at + slice < data.length) {
      since = 0;
      await setImmediate();
    }
  }
}
