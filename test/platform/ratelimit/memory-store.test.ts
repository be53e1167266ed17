import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../../../src/platform/ratelimit/memory-store.js';

const W = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

describe('MemoryRateLimitStore pruning', () => {
  it('drops keys at the first sweep after both of their windows rolled out (sweeps run once per window)', () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 10_000; i++) store.hit(`k${i}`, 10, W, T0 + 1_000);
    expect(store.size).toBe(10_000);
    store.hit('late', 10, W, T0 + W + 1_000); // keys still count as the previous window
    expect(store.size).toBe(10_001);
    store.hit('later', 10, W, T0 + 2 * W + 1_000); // sweep: the 10,000 went stale at T0 + 2W
    expect(store.size).toBe(2);
    store.hit('last', 10, W, T0 + 4 * W);
    expect(store.size).toBe(1);
  });

  it('keeps memory bounded under an endless stream of one-off keys', () => {
    const store = new MemoryRateLimitStore();
    let peak = 0;
    for (let i = 0; i < 50_000; i++) {
      store.hit(`once-${i}`, 10, W, T0 + i * 100); // 600 new keys per window
      peak = Math.max(peak, store.size);
    }
    expect(peak).toBeLessThanOrEqual(3 * 600 + 1);
  });

  it('forgets everything on close', async () => {
    const store = new MemoryRateLimitStore();
    store.hit('k', 1, W, T0);
    await store.close();
    expect(store.size).toBe(0);
    expect((store.hit('k', 1, W, T0)).allowed).toBe(true);
  });
});
