import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryRateLimitStore } from '../../../src/platform/ratelimit/memory-store.js';
import type { RateLimitStore } from '../../../src/platform/ratelimit/ratelimit.types.js';
import { RedisRateLimitStore } from '../../../src/platform/ratelimit/redis-store.js';

/** One backing store the shared suites run against. */
export interface StoreCase {
  readonly name: string;
  /** A fresh, empty store in its own key namespace. */
  open(): RateLimitStore;
  /** Removes everything the case wrote and closes its connections. */
  dispose(): Promise<void>;
}

export const testRedisUrl = process.env.TEST_REDIS_URL ?? '';

/** Redis namespace for this test run, so parallel runs and other suites on the server never collide. */
export function runPrefix(): string {
  return `gw:rl:test:${randomUUID()}:`;
}

export function memoryCase(): StoreCase {
  return { name: 'memory', open: () => new MemoryRateLimitStore(), dispose: () => Promise.resolve() };
}

/** Tracks clients and a run prefix; clients connect lazily so collecting tests opens no sockets. */
export class RedisHarness {
  readonly prefix = runPrefix();
  private readonly clients: Redis[] = [];
  private opened = 0;
  private shared: Redis | undefined;

  constructor(private readonly url: string) {}

  client(): Redis {
    const client = new Redis(this.url, { maxRetriesPerRequest: 1 });
    this.clients.push(client);
    return client;
  }

  /** A store under a fresh sub-prefix; pass `prefix` and `client` to model several gateways on one budget. */
  store(prefix = `${this.prefix}${++this.opened}:`, client = this.sharedClient()): RedisRateLimitStore {
    return new RedisRateLimitStore(client, prefix);
  }

  private sharedClient(): Redis {
    this.shared ??= this.client();
    return this.shared;
  }

  async dispose(): Promise<void> {
    const [first] = this.clients;
    if (first !== undefined) {
      for (let cursor = '0'; ; ) {
        const [next, keys] = await first.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await first.del(...keys);
        cursor = next;
        if (cursor === '0') break;
      }
    }
    await Promise.all(this.clients.map((c) => c.quit()));
    this.clients.length = 0;
    this.shared = undefined;
  }
}

export function redisCase(url: string): StoreCase {
  const harness = new RedisHarness(url);
  return { name: 'redis', open: () => harness.store(), dispose: () => harness.dispose() };
}

/** The memory store always; Redis too when TEST_REDIS_URL is set. */
export function storeCases(): StoreCase[] {
  return testRedisUrl === '' ? [memoryCase()] : [memoryCase(), redisCase(testRedisUrl)];
}
