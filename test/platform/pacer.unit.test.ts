import { describe, expect, it } from 'vitest';
import { Pacer } from '../../src/platform/core/pacer.js';

describe('Pacer', () => {
  it('lets waiting callbacks run while a loop that ticks it keeps going', async () => {
    const pacer = new Pacer();
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    // Without the pacer's yields this loop would spin forever: the callback could never run.
    for (let spins = 0; !ran; spins++) {
      await pacer.tick();
      if (spins > 1e9) break;
    }
    expect(ran).toBe(true);
  });

  it('a tick before its pace has passed does not give the turn away', async () => {
    let ran = false;
    setImmediate(() => {
      ran = true;
    });
    // A tick right after construction: the pace cannot have passed yet, so no yield (the await alone is a microtask).
    await new Pacer().tick();
    expect(ran).toBe(false);
  });
});
