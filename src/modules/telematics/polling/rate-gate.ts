import type { RateLimiter } from '../../../platform/ratelimit/rate-limiter.js';

/** Longest real-time nap between two asks: the budget runs on the gateway's clock, which tests move by hand. */
const MAX_NAP_MS = 1000;
/** A poll kept waiting this long (real time) refreshes its claim, so no other process takes the connection over meanwhile. */
const KEEP_ALIVE_MS = 20_000;

const napFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Holds a poll's next vendor call until the provider's request budget admits it (requests per minute for every process
 * together, counted by the shared limiter): a vendor's limit is met by waiting, not by failing polls into the breaker.
 * A vendor's per-URL budget (one call per URL per N seconds, per connection) is counted by the same limiter; its waits
 * are minutes long, so the gate answers how long instead of holding the call.
 */
export class VendorRateGate {
  constructor(private readonly limiter: RateLimiter) {}

  /** `onWait` hears of the first refusal, so a budget wait is counted once per call held. */
  async pass(providerId: string, perMinute: number, keepAlive: () => Promise<void>, onWait?: () => void): Promise<void> {
    let waitedMs = 0;
    for (let refusals = 0; ; refusals += 1) {
      const decision = await this.limiter.check(`vendor:${providerId}`, perMinute);
      if (decision.allowed) return;
      if (refusals === 0) onWait?.();
      const nap = Math.min(decision.retryAfterSeconds * 1000, MAX_NAP_MS);
      await napFor(nap);
      waitedMs += nap;
      if (waitedMs >= KEEP_ALIVE_MS) {
        waitedMs = 0;
        await keepAlive();
      }
    }
  }

  /**
   * Counts a call to `url` for the connection if its per-URL budget admits one now: 0 when it did, else the seconds
   * until it will (nothing counted). The sliding window errs long: the next call is admitted N to 2N seconds after one.
   */
  async tryUrl(connectionId: string, url: string, intervalSeconds: number): Promise<number> {
    const decision = await this.limiter.check(`vendor-url:${connectionId}:${url}`, 1, intervalSeconds * 1000);
    return decision.allowed ? 0 : decision.retryAfterSeconds;
  }

  /** Counts a call made without asking (the connect check: the fleet owner is waiting); answers when the next is admitted. */
  async countUrl(connectionId: string, url: string, intervalSeconds: number): Promise<number> {
    const counted = await this.tryUrl(connectionId, url, intervalSeconds);
    return counted > 0 ? counted : this.tryUrl(connectionId, url, intervalSeconds);
  }
}
