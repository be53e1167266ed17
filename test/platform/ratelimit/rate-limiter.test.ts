import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import type { RateLimitDecision, RateLimitStore } from '../../../src/platform/ratelimit/ratelimit.types.js';
import { createRateLimitStore, DEFAULT_RATE_LIMIT, RateLimiter } from '../../../src/platform/ratelimit/rate-limiter.js';
import { storeCases } from './store-cases.js';

const MINUTE = 60_000;
/** A window boundary, so tests can place requests relative to windows. */
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** Admitted timestamps of `perMinute` evenly spaced requests over `minutes`, starting at `startMs`. */
async function steadyTraffic(limiter: RateLimiter, clock: ManualClock, limit: number, perMinute: number, minutes: number, startMs: number): Promise<number[]> {
  const admitted: number[] = [];
  for (let i = 0; i < perMinute * minutes; i++) {
    const at = startMs + Math.floor((i * MINUTE) / perMinute);
    clock.set(new Date(at));
    if ((await limiter.check('steady', limit)).allowed) admitted.push(at);
  }
  return admitted;
}

/** Admitted count in each window [t, t + windowMs) for t stepping through [from, to - windowMs]. */
function slidingCounts(admitted: number[], from: number, to: number, windowMs: number, stepMs: number): number[] {
  const counts: number[] = [];
  let lo = 0;
  let hi = 0;
  for (let t = from; t + windowMs <= to; t += stepMs) {
    while (lo < admitted.length && (admitted[lo] ?? 0) < t) lo++;
    while (hi < admitted.length && (admitted[hi] ?? 0) < t + windowMs) hi++;
    counts.push(hi - lo);
  }
  return counts;
}

async function hitN(limiter: RateLimiter, key: string, limit: number, n: number): Promise<RateLimitDecision[]> {
  const out: RateLimitDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.check(key, limit));
  return out;
}

const admittedOf = (ds: RateLimitDecision[]): number => ds.filter((d) => d.allowed).length;

describe.each(storeCases())('RateLimiter on the $name store', (storeCase) => {
  afterAll(() => storeCase.dispose());

  const setup = (at = T0, windowMs = MINUTE): { limiter: RateLimiter; clock: ManualClock; store: RateLimitStore } => {
    const clock = new ManualClock(new Date(at));
    const store = storeCase.open();
    return { limiter: new RateLimiter(store, clock, { windowMs }), clock, store };
  };

  describe('accuracy under steady traffic (limit 600/min, 7 min, first 2 min warm-up)', () => {
    it.each([
      { factor: 0.9, perMinute: 540 },
      { factor: 1, perMinute: 600 },
      { factor: 2, perMinute: 1200 },
      { factor: 10, perMinute: 6000 },
    ])('admits within 5% of min(rate, limit) per sliding minute at $factor x the limit', async ({ perMinute }) => {
      const limit = DEFAULT_RATE_LIMIT;
      const start = T0 + 12_345; // off the window grid on purpose
      const { limiter, clock } = setup();
      const admitted = await steadyTraffic(limiter, clock, limit, perMinute, 7, start);
      const counts = slidingCounts(admitted, start + 2 * MINUTE, start + 7 * MINUTE, MINUTE, 1_000);
      const expected = Math.min(perMinute, limit);
      const lo = Math.min(...counts);
      const hi = Math.max(...counts);
      // Observed: exactly 540 at 0.9x, 599 at 1x/2x/10x (steady state keeps the estimate just under the limit).
      expect(lo, 'fewest admitted in a sliding minute').toBeGreaterThanOrEqual(expected * 0.95);
      expect(hi, 'most admitted in a sliding minute').toBeLessThanOrEqual(expected * 1.05);
    });
  });

  describe('bursts at window boundaries', () => {
    it('does not let a burst at the end of one window be followed by a full burst at the start of the next', async () => {
      const { limiter, clock } = setup(T0 + MINUTE - 1);
      expect(admittedOf(await hitN(limiter, 'k', 10, 15))).toBe(10);
      clock.set(new Date(T0 + MINUTE)); // a fixed window would reset here and admit 10 more
      const atBoundary = await hitN(limiter, 'k', 10, 10);
      expect(admittedOf(atBoundary)).toBe(0);
      expect(atBoundary[0]?.retryAfterSeconds).toBe(6); // previous weight 10 * (60 - 6) / 60 = 9 leaves room for 1
      clock.set(new Date(T0 + MINUTE + 30_000)); // half the previous window still counts: 10 * 0.5 = 5
      expect(admittedOf(await hitN(limiter, 'k', 10, 10))).toBe(5);
    });

    it('reaches but never passes the known worst case of 2 * limit - 1 in one sliding window', async () => {
      // Worst case for the even-spread assumption: the previous window's budget all arrives in its last millisecond.
      const { limiter, clock } = setup(T0 + MINUTE - 1);
      const admitted: number[] = [];
      for (let at = T0 + MINUTE - 1; at < T0 + 2 * MINUTE - 1; at += 100) {
        clock.set(new Date(at));
        for (const d of await hitN(limiter, 'k', 10, at === T0 + MINUTE - 1 ? 10 : 1)) if (d.allowed) admitted.push(at);
      }
      expect(admitted.length).toBe(19);
    });

    it('admits the full limit at once after the key was idle for a whole window', async () => {
      const { limiter, clock } = setup(T0 + 59_000);
      expect(admittedOf(await hitN(limiter, 'k', 10, 10))).toBe(10);
      clock.set(new Date(T0 + 2 * MINUTE)); // the burst's window is now two windows back
      expect(admittedOf(await hitN(limiter, 'k', 10, 12))).toBe(10);
    });

    it('spreads a window-start burst: a window fully used early leaves little for the start of the next', async () => {
      const { limiter, clock } = setup(T0);
      expect(admittedOf(await hitN(limiter, 'k', 10, 10))).toBe(10);
      clock.set(new Date(T0 + MINUTE + 6_000));
      expect(admittedOf(await hitN(limiter, 'k', 10, 5))).toBe(1);
    });
  });

  describe('per-key isolation', () => {
    it('keeps separate budgets per key', async () => {
      const { limiter } = setup(T0 + 1_000);
      expect(admittedOf(await hitN(limiter, 'a', 5, 8))).toBe(5);
      expect(admittedOf(await hitN(limiter, 'b', 5, 8))).toBe(5);
      expect((await limiter.check('a', 5)).allowed).toBe(false);
    });

    it('applies each key its own limit (per-key override)', async () => {
      const { limiter } = setup(T0 + 1_000);
      expect(admittedOf(await hitN(limiter, 'vip', 20, 25))).toBe(20);
      expect(admittedOf(await hitN(limiter, 'std', 3, 25))).toBe(3);
    });

    it('does not mix keys that share a prefix', async () => {
      const { limiter } = setup(T0 + 1_000);
      expect(admittedOf(await hitN(limiter, 'tenant:1', 2, 3))).toBe(2);
      expect(admittedOf(await hitN(limiter, 'tenant:10', 2, 3))).toBe(2);
      expect(admittedOf(await hitN(limiter, 'tenant:1:x', 2, 3))).toBe(2);
    });
  });

  describe('remaining, reset and retry-after', () => {
    it('reports the values of a fresh key filling up and being rejected', async () => {
      const { limiter, clock } = setup(T0 + 15_000);
      const ds = await hitN(limiter, 'k', 10, 11);
      expect(ds.slice(0, 10).map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
      // Had the 9 left been spent at once, the next fits once the next window is 6 s old (10 * 54 / 60 = 9): 51 s.
      expect(ds[0]).toEqual({ allowed: true, limit: 10, remaining: 9, resetSeconds: 51, retryAfterSeconds: 0, windowSeconds: 60 });
      expect(ds[10]).toEqual({ allowed: false, limit: 10, remaining: 0, resetSeconds: 51, retryAfterSeconds: 51, windowSeconds: 60 });
      clock.advance(50_000);
      expect((await limiter.check('k', 10)).allowed).toBe(false);
      clock.advance(1_000);
      // previous 10, current 1: the next fits 12 s into the window (10 * 48 / 60 + 1 = 9), 6 s from now.
      expect(await limiter.check('k', 10)).toEqual({ allowed: true, limit: 10, remaining: 0, resetSeconds: 6, retryAfterSeconds: 0, windowSeconds: 60 });
    });

    it('tells a reset that, waited, admits: not the fixed window end the previous weight outlives', async () => {
      // One request a minute, spent 30 s into a window: the window ends in 30 s, but the request weighs on the next one.
      const { limiter, clock } = setup(T0 + 30_000);
      const first = await limiter.check('k', 1);
      expect(first).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 90 });
      clock.advance(32_000); // the old RateLimit-Reset (30 s) + 2 s
      expect(await limiter.check('k', 1)).toMatchObject({ allowed: false, resetSeconds: 58, retryAfterSeconds: 58 });
      clock.advance(57_999);
      expect((await limiter.check('k', 1)).allowed).toBe(false);
      clock.advance(1);
      expect((await limiter.check('k', 1)).allowed).toBe(true);
    });

    it('rounds reset up and never reports less than one second', async () => {
      const { limiter } = setup(T0 + 15_500);
      expect((await limiter.check('k', 10)).resetSeconds).toBe(51); // 50.5 s
      const single = setup(T0, MINUTE);
      expect((await single.limiter.check('k', 1)).allowed).toBe(true);
      single.clock.set(new Date(T0 + 2 * MINUTE - 1)); // admitted again 1 ms later, when the first request rolls out
      expect(await single.limiter.check('k', 1)).toMatchObject({ allowed: false, resetSeconds: 1, retryAfterSeconds: 1 });
    });

    it('counts the weighted previous window in remaining', async () => {
      const { limiter, clock } = setup(T0 + 1_000);
      await hitN(limiter, 'k', 10, 10);
      clock.set(new Date(T0 + MINUTE + 30_000));
      expect((await limiter.check('k', 10)).remaining).toBe(4); // 10 * 0.5 + 1 used of 10
    });

    it('does not count rejected requests', async () => {
      const { limiter, clock } = setup(T0 + 15_000);
      await hitN(limiter, 'k', 10, 10);
      const first = await limiter.check('k', 10);
      const rejected = await hitN(limiter, 'k', 10, 500);
      expect(admittedOf(rejected)).toBe(0);
      expect(rejected.at(-1)).toEqual(first);
      clock.advance(first.retryAfterSeconds * 1_000);
      expect((await limiter.check('k', 10)).allowed).toBe(true);
    });
  });

  describe('properties', () => {
    const windowMs = 10_000; // short window: many windows per generated run
    const traffic = fc.record({
      limit: fc.integer({ min: 1, max: 12 }),
      // Gaps mix same-millisecond bursts, sub-window spacing and idle periods.
      gaps: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 1, max: 25_000 })), { minLength: 1, maxLength: 150 }),
      offset: fc.integer({ min: 0, max: windowMs - 1 }),
    });

    it('never admits more in any window-length span than limit + previous-window count * overlap', async () => {
      await fc.assert(
        fc.asyncProperty(traffic, async ({ limit, gaps, offset }) => {
          const { limiter, clock, store } = setup(T0 + offset, windowMs);
          const admitted: number[] = [];
          let at = T0 + offset;
          for (const gap of gaps) {
            at += gap;
            clock.set(new Date(at));
            if ((await limiter.check('p', limit)).allowed) admitted.push(at);
          }
          await store.close();
          const perWindow = new Map<number, number>();
          for (const t of admitted) perWindow.set(t - (t % windowMs), (perWindow.get(t - (t % windowMs)) ?? 0) + 1);
          for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(limit);
          // Known bound: a span starting `a` ms into window k holds at most limit + C_k * a / W,
          // i.e. under 2 * limit, because C_k is assumed spread evenly. Spans starting at an admit are the worst.
          for (const [i, t] of admitted.entries()) {
            const ws = t - (t % windowMs);
            const inSpan = admitted.slice(i).filter((u) => u < t + windowMs).length;
            expect(inSpan * windowMs).toBeLessThanOrEqual(limit * windowMs + (perWindow.get(ws) ?? 0) * (t - ws));
            expect(inSpan).toBeLessThanOrEqual(2 * limit - 1);
          }
        }),
        { numRuns: 150 },
      );
    });

    it('tells, on every decision, a reset that admits the next request once waited, and not a second earlier', async () => {
      await fc.assert(
        fc.asyncProperty(traffic, async ({ limit, gaps, offset }) => {
          const { limiter, clock, store } = setup(T0 + offset, windowMs);
          for (const gap of gaps) {
            clock.advance(gap);
            const told = await limiter.check('p', limit);
            // Spend what it says is left at once: the one after is refused with the same reset.
            expect(admittedOf(await hitN(limiter, 'p', limit, told.remaining))).toBe(told.remaining);
            const refused = await limiter.check('p', limit);
            expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: told.resetSeconds });
            if (told.resetSeconds > 1) {
              clock.advance((told.resetSeconds - 1) * 1000);
              expect((await limiter.check('p', limit)).allowed).toBe(false);
              clock.advance(1000);
            } else clock.advance(1000);
            expect((await limiter.check('p', limit)).allowed).toBe(true);
          }
          await store.close();
        }),
        { numRuns: 60 },
      );
    });

    it('reports remaining and retry-after that the next requests confirm exactly', async () => {
      await fc.assert(
        fc.asyncProperty(traffic, async ({ limit, gaps, offset }) => {
          const { limiter, clock, store } = setup(T0 + offset, windowMs);
          let last: RateLimitDecision | undefined;
          for (const gap of gaps) {
            clock.advance(gap);
            last = await limiter.check('p', limit);
          }
          if (last === undefined) return;
          if (last.allowed) {
            // Exactly `remaining` more fit at this instant.
            expect(admittedOf(await hitN(limiter, 'p', limit, last.remaining + 1))).toBe(last.remaining);
            last = await limiter.check('p', limit);
          }
          expect(last.allowed).toBe(false);
          expect(last.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          expect(last.resetSeconds).toBe(last.retryAfterSeconds);
          expect(last.resetSeconds).toBeLessThanOrEqual((2 * windowMs) / 1000);
          // Rejected until (retryAfter - 1) s later, admitted at retryAfter s.
          clock.advance((last.retryAfterSeconds - 1) * 1000);
          if (last.retryAfterSeconds > 1) expect((await limiter.check('p', limit)).allowed).toBe(false);
          clock.advance(1000);
          expect((await limiter.check('p', limit)).allowed).toBe(true);
          await store.close();
        }),
        { numRuns: 150 },
      );
    });
  });
});

describe('RateLimiter failure handling', () => {
  const failing: RateLimitStore = {
    hit: () => Promise.reject(new Error('connection lost')),
    close: () => Promise.resolve(),
  };

  it('fails open with a degraded decision when the store throws', async () => {
    const limiter = new RateLimiter(failing, new ManualClock(new Date(T0 + 20_000)));
    expect(await limiter.check('k', 600)).toEqual({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60, retryAfterSeconds: 0, windowSeconds: 60, degraded: true });
  });

  it('refuses to start on a Redis that cannot be reached', async () => {
    await expect(createRateLimitStore('redis://127.0.0.1:1')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('rejects invalid limits and windows instead of failing open on them', async () => {
    const limiter = new RateLimiter(failing, new ManualClock());
    await expect(limiter.check('k', 0)).rejects.toThrow(RangeError);
    await expect(limiter.check('k', 1.5)).rejects.toThrow(RangeError);
    await expect(limiter.check('k', Number.MAX_SAFE_INTEGER)).rejects.toThrow(RangeError);
    expect(() => new RateLimiter(failing, new ManualClock(), { windowMs: 0 })).toThrow(RangeError);
  });

  it('builds a memory store without a URL', async () => {
    expect((await createRateLimitStore()).constructor.name).toBe('MemoryRateLimitStore');
    expect((await createRateLimitStore('')).constructor.name).toBe('MemoryRateLimitStore');
  });
});
