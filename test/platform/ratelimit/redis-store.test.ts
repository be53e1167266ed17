import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { MemoryRateLimitStore } from '../../../src/platform/ratelimit/memory-store.js';
import type { RateLimitDecision } from '../../../src/platform/ratelimit/ratelimit.types.js';
import { createRateLimitStore, RateLimiter } from '../../../src/platform/ratelimit/rate-limiter.js';
import { RedisWithFallbackStore } from '../../../src/platform/ratelimit/redis-fallback.js';
import { RedisRateLimitStore } from '../../../src/platform/ratelimit/redis-store.js';
import { RedisHarness, testRedisUrl } from './store-cases.js';

const W = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

describe.skipIf(testRedisUrl === '')('RedisRateLimitStore against a live server', () => {
  const redis = new RedisHarness(testRedisUrl);
  afterAll(() => redis.dispose());

  it('shares one budget between gateway instances on separate clients', async () => {
    const prefix = `${redis.prefix}shared:`;
    const clock = new ManualClock(new Date(T0 + 1_000));
    const a = new RateLimiter(redis.store(prefix, redis.client()), clock);
    const b = new RateLimiter(redis.store(prefix, redis.client()), clock);
    const decisions: RateLimitDecision[] = [];
    for (let i = 0; i < 20; i++) decisions.push(await (i % 2 === 0 ? a : b).check('tenant', 12));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(12);
    expect(decisions.map((d) => d.remaining).slice(0, 12)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it('admits exactly the limit when instances race concurrently (the script is atomic)', async () => {
    const prefix = `${redis.prefix}race:`;
    const clock = new ManualClock(new Date(T0 + 1_000));
    const limiters = [0, 1, 2, 3].map(() => new RateLimiter(redis.store(prefix, redis.client()), clock));
    const decisions = await Promise.all(limiters.flatMap((limiter) => Array.from({ length: 100 }, () => Promise.resolve(limiter.check('hot', 150)))));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(150);
    expect(decisions.some((d) => d.degraded === true)).toBe(false);
  });

  it('stores one hash per key that expires after two windows', async () => {
    const client = redis.client();
    const store = redis.store(`${redis.prefix}ttl:`, client);
    await store.hit('k', 10, W, T0 + 1_000);
    const ttl = await client.pttl(`${redis.prefix}ttl:k`);
    expect(ttl).toBeGreaterThan(2 * W - 5_000);
    expect(ttl).toBeLessThanOrEqual(2 * W);
    expect(await client.hgetall(`${redis.prefix}ttl:k`)).toEqual({ ws: String(T0), cur: '1', prev: '0' });
  });

  it('decides exactly like the memory store for any request sequence', async () => {
    const traffic = fc.record({
      limit: fc.integer({ min: 1, max: 20 }),
      steps: fc.array(fc.record({ gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 1, max: 70_000 })), key: fc.constantFrom('a', 'b') }), {
        minLength: 1,
        maxLength: 120,
      }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(traffic, async ({ limit, steps }) => {
        const memory = new MemoryRateLimitStore();
        const remote = redis.store(`${redis.prefix}agree:${++run}:`);
        let now = T0 + 7_777;
        for (const { gap, key } of steps) {
          now += gap;
          expect(await remote.hit(key, limit, W, now)).toEqual(memory.hit(key, limit, W, now));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('does not close a client it was given', async () => {
    const client = redis.client();
    await client.ping();
    await new RedisRateLimitStore(client, `${redis.prefix}owned:`).close();
    expect(await client.ping()).toBe('PONG');
  });

  it('builds an owned client from a URL, connected before it resolves', async () => {
    const store = await createRateLimitStore(testRedisUrl, { keyPrefix: `${redis.prefix}factory:` });
    // Shared through Redis, with an in-process fallback for while it is down (redis-loss.process.test.ts).
    expect(store).toBeInstanceOf(RedisWithFallbackStore);
    const limiter = new RateLimiter(store, new ManualClock(new Date(T0)));
    expect(await limiter.check('k', 5)).toEqual({ allowed: true, limit: 5, remaining: 4, resetSeconds: 72, retryAfterSeconds: 0, windowSeconds: 60 });
    await limiter.close();
  });

  it('fails open with degraded decisions when the connection drops', async () => {
    // Its own client: the harness quits its clients at the end, and this one is gone by then.
    const client = new Redis(testRedisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
    await client.connect();
    const limiter = new RateLimiter(new RedisRateLimitStore(client, `${redis.prefix}drop:`), new ManualClock(new Date(T0)));
    expect((await limiter.check('k', 5)).degraded).toBeUndefined();
    client.disconnect();
    const decision = await limiter.check('k', 5);
    expect(decision).toMatchObject({ allowed: true, degraded: true });
  });
});

describe('RedisRateLimitStore script cache', () => {
  it('falls back to EVAL when the server lost the script (NOSCRIPT)', async () => {
    const calls: string[] = [];
    const fake = {
      evalsha: () => {
        calls.push('evalsha');
        return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
      },
      eval: () => {
        calls.push('eval');
        return Promise.resolve([1, T0, 1, 0]);
      },
    };
    const store = new RedisRateLimitStore(fake as unknown as Redis, 'gw:rl:');
    expect((await store.hit('k', 10, W, T0 + 1)).allowed).toBe(true);
    expect(calls).toEqual(['evalsha', 'eval']);
  });

  it('propagates other errors so the limiter can fail open', async () => {
    const fake = { evalsha: () => Promise.reject(new Error('Connection is closed.')) };
    const store = new RedisRateLimitStore(fake as unknown as Redis, 'gw:rl:');
    await expect(store.hit('k', 10, W, T0)).rejects.toThrow('Connection is closed.');
  });
});
