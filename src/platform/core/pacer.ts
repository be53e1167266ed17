import { setImmediate } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** The most a paced loop runs between two yields to the event loop: requests beside a large job wait no longer. */
const PACE_MS = 4;

/**
 * When a paced loop last got the event loop back. One clock for every pacer: on SQLite a chain of awaited steps runs in
 * one turn (its reads and writes answer at once), so a step's pacer must count the time its predecessors already took.
 */
let resumedAt = performance.now();

/**
 * Awaited once per item of a long loop: yields to the event loop once PACE_MS has passed since a paced loop last got it
 * back. By time, not by count, because what one item costs varies with the machine's load and the item (a group of one
 * set or of thousands). A loop that starts in a turn no paced loop began yields at its first item.
 */
export async function pace(): Promise<void> {
  if (performance.now() - resumedAt < PACE_MS) return;
  await setImmediate();
  resumedAt = performance.now();
}
