import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { MemoryRateLimitStore } from './memory-store.js';
import type { RateLimitDecision, RateLimitStore } from './ratelimit.types.js';

/** While Redis is held for down on a failed command (the connection still open), one hit a second tries it again. */
const PROBE_EVERY_MS = 1000;

export interface RedisFallbackOptions {
  /** Processes that share the limits (RATE_LIMIT_INSTANCES): while Redis is down each one admits limit / instances. */
  instances: number;
  log?: Logger;
  metrics?: Registry;
}

/**
 * Whether the gateway can use Redis, told once per outage and once per recovery (a log line, gateway_redis_up): the
 * connection's close and ready events move it, and so does a command that fails or succeeds on an open connection.
 */
export class RedisHealth {
  private down = false;
  private downSince = 0;
  private lastProbeMs = 0;
  private readonly upGauge: Gauge | undefined;

  constructor(
    private readonly client: Redis,
    private readonly log?: Logger,
    metrics?: Registry,
  ) {
    this.upGauge = metrics
      ? new Gauge({ name: 'gateway_redis_up', help: '1 while this process can use Redis (REDIS_URL), 0 while it counts limits per process', registers: [metrics] })
      : undefined;
    this.upGauge?.set(1);
    client.on('close', this.onClose);
    client.on('ready', this.onReady);
  }

  /** Before the client is closed on purpose, so a shutdown is not reported as an outage. */
  stop(): void {
    this.client.off('close', this.onClose);
    this.client.off('ready', this.onReady);
  }

  /**
   * Whether to send this hit to Redis: not while disconnected, and only a probe a second after a failed command. On the
   * real clock, not the limiter's: tests move that one by hand, and an outage is measured in real time.
   */
  shouldTry(): boolean {
    if (this.client.status !== 'ready') return false;
    if (!this.down) return true;
    const now = Date.now();
    if (now - this.lastProbeMs < PROBE_EVERY_MS) return false;
    this.lastProbeMs = now;
    return true;
  }

  failed(err: unknown): void {
    this.markDown(err instanceof Error ? err.message : String(err));
  }

  succeeded(): void {
    if (this.down) this.markUp();
  }

  private readonly onClose = (): void => this.markDown('connection closed');
  private readonly onReady = (): void => this.markUp();

  private markDown(reason: string): void {
    if (this.down) return;
    this.down = true;
    this.downSince = Date.now();
    this.lastProbeMs = this.downSince;
    this.upGauge?.set(0);
    this.log?.warn(
      { reason },
      'Redis unavailable: rate limits and vendor budgets now count per process (limit / RATE_LIMIT_INSTANCES); key revocations reach other processes within KEY_CACHE_TTL_MS',
    );
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.upGauge?.set(1);
    this.log?.info({ outageMs: Date.now() - this.downSince }, 'Redis available again: rate limits and vendor budgets are shared again');
  }
}

/**
 * The shared Redis store, and an in-process one for while Redis is down: a request is never failed or held for want
 * of a counter. Each process then admits its share of the limit (limit / instances, at least 1), so together they
 * stay near the limit; when Redis is back the shared counters resume (what was counted locally is not carried over).
 */
export class RedisWithFallbackStore implements RateLimitStore {
  private readonly local = new MemoryRateLimitStore();
  private readonly fallbacks: Counter | undefined;

  constructor(
    private readonly redis: RateLimitStore,
    private readonly health: RedisHealth,
    private readonly opts: RedisFallbackOptions,
  ) {
    this.fallbacks = opts.metrics
      ? new Counter({ name: 'gateway_redis_fallback_total', help: 'Rate-limit and vendor-budget decisions counted in this process because Redis was unavailable', registers: [opts.metrics] })
      : undefined;
  }

  hit(key: string, limit: number, windowMs: number, nowMs: number): RateLimitDecision | Promise<RateLimitDecision> {
    if (!this.health.shouldTry()) return this.locally(key, limit, windowMs, nowMs);
    const shared = this.redis.hit(key, limit, windowMs, nowMs);
    return Promise.resolve(shared).then(
      (decision) => {
        this.health.succeeded();
        return decision;
      },
      (err: unknown) => {
        this.health.failed(err);
        return this.locally(key, limit, windowMs, nowMs);
      },
    );
  }

  async close(): Promise<void> {
    this.health.stop();
    await Promise.all([this.redis.close(), this.local.close()]);
  }

  /** The decision states the share it applied (RateLimit-Policy q=), the limit in force for this client right now. */
  private locally(key: string, limit: number, windowMs: number, nowMs: number): RateLimitDecision {
    this.fallbacks?.inc();
    return this.local.hit(key, Math.max(1, Math.floor(limit / this.opts.instances)), windowMs, nowMs);
  }
}
