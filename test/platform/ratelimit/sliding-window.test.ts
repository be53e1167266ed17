import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admits,
  applyHit,
  decide,
  estimate,
  remainingAt,
  retryAfterMs,
  rollWindow,
  type WindowState,
} from '../../../src/platform/ratelimit/sliding-window.js';

const W = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

describe('sliding-window math', () => {
  it('weights the previous window by the part of it still inside the sliding window', () => {
    const state: WindowState = { windowStart: T0, current: 3, previous: 10 };
    expect(estimate(state, T0, W)).toBe(13);
    expect(estimate(state, T0 + 15_000, W)).toBe(10.5);
    expect(estimate(state, T0 + 45_000, W)).toBe(5.5);
  });

  it('admits when estimate + 1 <= limit, including exact equality', () => {
    const state: WindowState = { windowStart: T0, current: 4, previous: 10 };
    expect(admits(state, T0 + 30_000, W, 10)).toBe(true); // 5 + 4 + 1 = 10
    expect(admits(state, T0 + 29_999, W, 10)).toBe(false);
  });

  it('rolls the window forward, shifting or dropping counts', () => {
    const stored: WindowState = { windowStart: T0, current: 7, previous: 2 };
    expect(rollWindow(undefined, T0 + 5, W)).toEqual({ windowStart: T0, current: 0, previous: 0 });
    expect(rollWindow(stored, T0 + W - 1, W)).toEqual(stored);
    expect(rollWindow(stored, T0 + W, W)).toEqual({ windowStart: T0 + W, current: 0, previous: 7 });
    expect(rollWindow(stored, T0 + 2 * W, W)).toEqual({ windowStart: T0 + 2 * W, current: 0, previous: 0 });
  });

  it('keeps a stored window that is ahead of a lagging caller clock', () => {
    const stored: WindowState = { windowStart: T0 + W, current: 5, previous: 9 };
    expect(rollWindow(stored, T0 + W - 200, W)).toEqual(stored);
    expect(estimate(stored, T0 + W - 200, W)).toBe(14); // elapsed clamps to 0
  });

  it('computes remaining from the weighted estimate', () => {
    expect(remainingAt({ windowStart: T0, current: 1, previous: 10 }, T0 + 30_000, W, 10)).toBe(4);
    expect(remainingAt({ windowStart: T0, current: 9, previous: 10 }, T0 + 30_000, W, 10)).toBe(0);
  });

  it('reports reset and retry-after in whole seconds, at least 1, reset as retry-after once the rest is spent', () => {
    // 9 left: spent at once, the 10 weigh on the next window until 6 s into it.
    expect(decide(true, { windowStart: T0, current: 1, previous: 0 }, T0 + W - 1, W, 10).resetSeconds).toBe(7);
    expect(decide(false, { windowStart: T0, current: 0, previous: 1 }, T0 + W - 1, W, 1).resetSeconds).toBe(1); // rolls out in 1 ms
    expect(decide(false, { windowStart: T0, current: 10, previous: 0 }, T0 + W - 1, W, 10)).toEqual({
      allowed: false,
      limit: 10,
      remaining: 0,
      resetSeconds: 7,
      retryAfterSeconds: 7, // 1 ms to the next window, then 6 s for the previous 10 to decay to 9
      windowSeconds: 60,
    });
  });

  it('gives the earliest instant a request is admitted, to the millisecond', () => {
    const stateArb = fc.record({
      limit: fc.integer({ min: 1, max: 1_000 }),
      current: fc.integer({ min: 0, max: 1_000 }),
      previous: fc.integer({ min: 0, max: 2_000 }),
      elapsed: fc.integer({ min: 0, max: W - 1 }),
    });
    fc.assert(
      fc.property(stateArb, ({ limit, current, previous, elapsed }) => {
        const state: WindowState = { windowStart: T0, current, previous };
        const now = T0 + elapsed;
        fc.pre(!admits(state, now, W, limit));
        const wait = retryAfterMs(state, now, W, limit);
        expect(wait).toBeGreaterThan(0);
        expect(admits(rollWindow(state, now + wait, W), now + wait, W, limit)).toBe(true);
        expect(admits(rollWindow(state, now + wait - 1, W), now + wait - 1, W, limit)).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('leaves the stored state untouched on a rejected hit', () => {
    const stored: WindowState = { windowStart: T0, current: 10, previous: 0 };
    const { decision, state } = applyHit(stored, T0 + 1, W, 10);
    expect(decision.allowed).toBe(false);
    expect(state).toEqual(stored);
    expect(stored.current).toBe(10);
  });
});
