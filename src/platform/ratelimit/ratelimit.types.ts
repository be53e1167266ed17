/** Outcome of one rate-limit check; the fields map onto the RateLimit-Policy, RateLimit and Retry-After response headers. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests that would still be admitted right now (0 when rejected). */
  remaining: number;
  /** Seconds after which, had the client spent `remaining` at once, the next request is admitted; >= 1. */
  resetSeconds: number;
  /** 0 when allowed; otherwise seconds until a request would be admitted, >= 1. */
  retryAfterSeconds: number;
  /** The policy's window in whole seconds. */
  windowSeconds: number;
  /** Set when the store failed and the request was admitted without counting (fail open). */
  degraded?: boolean;
}

/** Backing counter storage; implementations must apply sliding-window.ts exactly so they agree. */
export interface RateLimitStore {
  /** Counts one request for `key` if admitted; rejected requests change nothing. An in-process store answers at once. */
  hit(key: string, limit: number, windowMs: number, nowMs: number): RateLimitDecision | Promise<RateLimitDecision>;
  close(): Promise<void>;
}
