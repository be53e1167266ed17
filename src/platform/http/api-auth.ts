import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KeyVerifier } from '../auth/key-verifier.js';
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

/** onRequest hook for key-authenticated surfaces: key -> org + scopes, then the key's rate limit. */
export function apiKeyAuth(opts: ApiAuthOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // A dealer page's key sent here by mistake: say where it works rather than only "missing API key".
    if (request.headers.authorization === undefined && request.headers['x-portal-key'] !== undefined) throw portalKeyRefused();
    const key = await opts.verifier.verify(request.headers.authorization);
    const limit = key.rateLimitPerMinute ?? opts.defaultLimitPerMinute;
    enforceRateLimit(request, reply, await opts.limiter.check(`key:${key.keyId}`, limit), `${limit} requests per minute`);
    request.auth = { orgId: key.orgId, keyId: key.keyId, scopes: key.scopes, source: opts.source };
  };
}

/** Answers a limiter decision: RateLimit-* headers always, 429 with Retry-After when refused. */
export function enforceRateLimit(request: FastifyRequest, reply: FastifyReply, decision: RateLimitDecision, what: string): void {
  if (decision.degraded) request.log.warn('rate limit store unavailable: admitting without a shared count');
  void reply.headers({
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  });
  if (!decision.allowed) {
    throw new AppError('rate_limited', `rate limit of ${what} exceeded`, undefined, { 'retry-after': String(decision.retryAfterSeconds) });
  }
}

/** The caller's auth context; a route behind apiKeyAuth always has one. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError('unauthorized', 'missing API key');
  return request.auth;
}
