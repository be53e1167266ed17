import { Redis } from 'ioredis';
import type { Clock } from '../core/clock.js';
import { MemoryRateLimitStore } from './memory-store.js';
import { type RedisFallbackOptions, RedisHealth, RedisWithFallbackStore } from './redis-fallback.js';
import type { RateLimitDecision, RateLimitStore } from './ratelimit.types.js';
import { RedisRateLimitStore } from './redis-store.js';
import { windowSecondsOf } from './sliding-window.js';

/** Requests per window for keys without an override. */
export const DEFAULT_RATE_LIMIT = 600;
export const DEFAULT_WINDOW_MS = 60_000;

interface RateLimiterOptions {
  windowMs?: number;
}

/** Per-key sliding-window limiter; the store decides whether the budget is per instance or shared. */
export class RateLimiter {
  private readonly windowMs: number;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    opts: RateLimiterOptions = {},
  ) {
    this.windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
    if (!Number.isInteger(this.windowMs) || this.windowMs < 1) throw new RangeError(`windowMs must be a positive integer, got ${this.windowMs}`);
  }

  /**
   * Counts one request for `key` against `limit` (the key's override or DEFAULT_RATE_LIMIT), per the limiter's window or
   * `windowMs`. The in-process store answers at once, not in a promise; Redis answers in one.
   */
  check(key: string, limit: number, windowMs = this.windowMs): RateLimitDecision | Promise<RateLimitDecision> {
    // Scaled estimates reach about 3 * limit * windowMs and must stay exact integers in a double.
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(windowMs) || windowMs < 1 || !Number.isSafeInteger(4 * limit * windowMs)) {
      return Promise.reject(new RangeError(`limit must be a positive integer small enough for the window, got ${limit}`));
    }
    const nowMs = this.clock.now().getTime();
    // Fail open: a counter outage should cost throttling, not the whole API; callers see `degraded` and log/alert.
    const failOpen = (): RateLimitDecision => {
      // Nothing was counted, so nothing is known of the window: the policy's whole window is the honest bound.
      const windowSeconds = windowSecondsOf(windowMs);
      return { allowed: true, limit, remaining: limit - 1, resetSeconds: windowSeconds, retryAfterSeconds: 0, windowSeconds, degraded: true };
    };
    try {
      const decision = this.store.hit(key, limit, windowMs, nowMs);
      return decision instanceof Promise ? decision.catch(failOpen) : decision;
    } catch {
      return failOpen();
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

interface RateLimitStoreOptions {
  /** Redis key namespace; lets several gateways or test runs share one server. */
  keyPrefix?: string;
  /** Receives ioredis connection errors; without a listener ioredis prints every reconnect failure. */
  onError?: (err: Error) => void;
  /** For a client built from a URL: how it degrades while Redis is down (per-process share, log, metrics). */
  fallback?: RedisFallbackOptions;
}

/**
 * Redis store when given a URL (e.g. process.env.REDIS_URL) or client, in-process store otherwise.
 * A client built from a URL is owned (closed with the store), connected before this resolves (a Redis that
 * cannot be reached fails start-up), and afterwards fails fast when disconnected, so an outage turns into
 * per-process decisions (redis-fallback.ts) instead of queued, stalled requests.
 */
export async function createRateLimitStore(redisUrlOrClient?: string | Redis, opts: RateLimitStoreOptions = {}): Promise<RateLimitStore> {
  const keyPrefix = opts.keyPrefix ?? 'gw:rl:';
  if (redisUrlOrClient instanceof Redis) return new RedisRateLimitStore(redisUrlOrClient, keyPrefix, false);
  if (redisUrlOrClient === undefined || redisUrlOrClient === '') return new MemoryRateLimitStore();
  const client = new Redis(redisUrlOrClient, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 250,
  });
  // ioredis rejects connect() with "Connection is closed."; the error event says why (ECONNREFUSED, auth, ...).
  let lastError: Error | undefined;
  client.on('error', (err: Error) => {
    lastError = err;
    opts.onError?.(err);
  });
  try {
    await client.connect();
  } catch (err) {
    client.disconnect();
    throw lastError ?? err;
  }
  const shared = new RedisRateLimitStore(client, keyPrefix, true);
  const fallback = opts.fallback ?? { instances: 1 };
  return new RedisWithFallbackStore(shared, new RedisHealth(client, fallback.log, fallback.metrics), fallback);
}
