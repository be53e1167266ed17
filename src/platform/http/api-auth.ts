import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyVerifier, VerifiedKey } from '../auth/key-verifier.js';
import { portalKeyRefused } from '../auth/portal-key.js';
import type { AuthContext } from '../auth/scopes.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import type { RateLimitDecision } from '../ratelimit/ratelimit.types.js';
import { AppError } from '../core/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

interface ApiAuthOptions {
  verifier: KeyVerifier;
  limiter: RateLimiter;
  defaultLimitPerMinute: number;
  source: AuthContext['source'];
}

/**
 * onRequest hook for key-authenticated surfaces: key -> org + scopes, then the key's rate limit. A callback hook, not an
 * async one: with the key cached and the in-process limiter, the request goes on in the same tick, no promise made.
 */
export function apiKeyAuth(opts: ApiAuthOptions) {
  const admit = (request: FastifyRequest, reply: FastifyReply, key: VerifiedKey): void | Promise<void> => {
    const limit = key.rateLimitPerMinute ?? opts.defaultLimitPerMinute;
    const decided = (decision: RateLimitDecision): void => {
      enforceRateLimit(request, reply, decision, 'key', `${limit} requests per minute`);
      request.auth = { orgId: key.orgId, keyId: key.keyId, scopes: key.scopes, source: opts.source };
    };
    const decision = opts.limiter.check(`key:${key.keyId}`, limit);
    return decision instanceof Promise ? decision.then(decided) : decided(decision);
  };
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    let admitted: void | Promise<void>;
    try {
      // A dealer page's key sent here by mistake: say where it works rather than only "missing API key".
      if (request.headers.authorization === undefined && request.headers['x-portal-key'] !== undefined) throw portalKeyRefused();
      const key = opts.verifier.verify(request.headers.authorization);
      admitted = key instanceof Promise ? key.then((k) => admit(request, reply, k)) : admit(request, reply, key);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (admitted instanceof Promise) admitted.then(() => done(), done);
    else done();
  };
}

/** Names of the limiter policies a door applies, as the RateLimit-Policy and RateLimit fields name them. */
export type RateLimitPolicy = 'key' | 'ip';

/**
 * Answers a limiter decision in the IETF httpapi draft's structured fields, appended to those of a policy checked
 * before on this request (`RateLimit-Policy: "key";q=600;w=60`, `RateLimit: "key";r=599;t=1`); 429 with Retry-After
 * (the refused policy's `t`) when refused.
 */
export function enforceRateLimit(request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision, policy: RateLimitPolicy, what: string): void {
  if (decision.degraded) request.log.warn('rate limit store unavailable: admitting without a shared count');
  appendListItem(reply, 'ratelimit-policy', `"${policy}";q=${decision.limit};w=${decision.windowSeconds}`);
  appendListItem(reply, 'ratelimit', `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`);
  if (!decision.allowed) {
    throw new AppError('rate_limited', `rate limit of ${what} exceeded`, undefined, { 'retry-after': String(decision.retryAfterSeconds) });
  }
}

/** One more item of a structured-field list header. */
function appendListItem(reply: FastifyReply, name: string, item: string): void {
  const before = reply.getHeader(name);
  void reply.header(name, before === undefined ? item : `${String(before)}, ${item}`);
}

/** The caller's auth context; a route behind apiKeyAuth always has one. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', 'missing API key');
  return request.auth;
}
