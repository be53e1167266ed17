import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { pace } from '../../src/platform/core/pacer.js';

describe('pace', () => {
  it('lets waiting callbacks run while a loop that awaits it keeps going', async () => {
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    // Without its yields this loop would spin forever: the callback could never run.
    for (let spins = 0; !ran; spins++) {
      await pace();
      if (spins > 1e9) break;
    }
    expect(ran).toBe(true);
  });

  it('right after a paced loop got the turn back, does not give it away', async () => {
    // Spin until pace() has yielded once: the turn now belongs to a paced loop that just resumed.
    let yielded = false;
    setImmediate(() => {
      yielded = true;
    });
    while (!yielded) await pace();
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    await pace();
    expect(ran).toBe(false);
  });

  it('counts the time of the steps before it in the same turn, whoever began it', async () => {
    // A turn no paced loop began (this test's own), busy past the pace in a step that does not pace itself.
    await nextTurn();
    const until = performance.now() + 6;
    while (performance.now() < until);
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    // A new loop's first item: the turn has run longer than the pace, so it gives the turn away at once.
    await pace();
    expect(ran).toBe(true);
  });
});
