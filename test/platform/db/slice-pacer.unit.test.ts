import { describe, expect, it } from 'vitest';
import { SlicePacer } from '../../../src/platform/db/slice-pacer.js';

describe('SlicePacer', () => {
  it('on SQLite follows the measured write time toward the target, at most 2x a step, within its bounds', async () => {
    const pacer = new SlicePacer({ targetMs: 10 }, 1000, 50);
    expect(pacer.size).toBe(1000);
    // A slice of 1,000 rows took 40 ms: the next takes half (one step), then it converges on ~10 ms worth.
    await pacer.next(40);
    expect(pacer.size).toBe(500);
    await pacer.next(20);
    expect(pacer.size).toBe(250);
    await pacer.next(10);
    expect(pacer.size).toBe(250);
    // Cheaper rows: it grows again, never past the most it was given.
    await pacer.next(1);
    expect(pacer.size).toBe(500);
    await pacer.next(1);
    await pacer.next(1);
    expect(pacer.size).toBe(1000);
    // However slow, never below the least.
    for (let i = 0; i < 6; i++) await pacer.next(100);
    expect(pacer.size).toBe(50);
  });

  it('without a target (PostgreSQL) keeps the size it was given', async () => {
    const pacer = new SlicePacer({ targetMs: undefined }, 1000, 50);
    await pacer.next(500);
    expect(pacer.size).toBe(1000);
  });
});
