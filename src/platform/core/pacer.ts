import { setImmediate } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/** The most a paced loop runs between two yields to the event loop: requests beside a large job wait no longer. */
const PACE_MS = 4;

/**
 * Yields to the event loop once PACE_MS has passed since the last yield: by time, not by count, because what one item
 * costs varies with the machine's load and the item (a group of one set or of thousands).
 */
export class Pacer {
  private since = performance.now();

  async tick(): Promise<void> {
    if (performance.now() - this.since < PACE_MS) return;
    await setImmediate();
    this.since = performance.now();
  }
}
