import type { RateLimiter } from '../../../platform/ratelimit/rate-limiter.js';

/** Longest real-time nap between two asks: the budget runs on the gateway's clock, which tests move by hand. */
const MAX_NAP_MS = 1000;
/** A poll kept waiting this long (real time) refreshes its claim, so no other process takes the connection over meanwhile. */
const KEEP_ALIVE_MS = 20_000;

const napFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Holds a poll's next vendor call until the provider's request budget admits it (requests per minute for every process
 * together, counted by the shared limiter): a vendor's limit is met by waiting, not by failing polls into the breaker.
 */
export class VendorRateGate {
  constructor(private readonly limiter: RateLimiter) {}

  /** True when the call had to wait for the budget (counted in the connection's issues). */
  async pass(providerId: string, perMinute: number, keepAlive: () => Promise<void>): Promise<boolean> {
    let waitedMs = 0;
    let waited = false;
    for (;;) {
      const decision = await this.limiter.check(`vendor:${providerId}`, perMinute);
      if (decision.allowed) return waited;
      waited = true;
      const nap = Math.min(decision.retryAfterSeconds * 1000, MAX_NAP_MS);
      await napFor(nap);
      waitedMs += nap;
      if (waitedMs >= KEEP_ALIVE_MS) {
        waitedMs = 0;
        await keepAlive();
      }
    }
  }
}
