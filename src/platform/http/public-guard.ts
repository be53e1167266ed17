import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { DOOR_SCOPE } from '../auth/scopes.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { enforceRateLimit } from './api-auth.js';
import { AppError } from '../core/errors.js';
import { allowedOrigin, BROWSER_WITHOUT_ORIGIN, type CorsOptions, isPlacelessBrowser } from './origin.js';

interface PublicGuardOptions {
  /** Browser origins that may call (exact scheme + host + port). */
  origins: readonly string[];
  cors: CorsOptions;
  limiter: RateLimiter;
  /** Rate-limit bucket name (one per public operation) and its requests per minute per client IP. */
  bucket: string;
  perIpPerMinute: number;
}

/** A browser request without an Origin is refused; a server-side client (neither header) is covered by the token and per-IP checks. */
const browserMustSayOrigin: onRequestHookHandler = (request, _reply, done) => {
  done(isPlacelessBrowser(request) ? new AppError('forbidden_origin', BROWSER_WITHOUT_ORIGIN) : undefined);
};

/**
 * onRequest hooks of a public route (no key): the origin allowlist with its CORS grant, then the sliding-window limit
 * per client IP (request.ip: X-Forwarded-For only from the proxies TRUST_PROXY names).
 */
export function publicGuard(opts: PublicGuardOptions): [onRequestHookHandler, onRequestHookHandler, onRequestAsyncHookHandler] {
  const perIp = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const decision = await opts.limiter.check(`ip:${opts.bucket}:${request.ip}`, opts.perIpPerMinute);
    enforceRateLimit(request, reply, decision, 'ip', `${opts.perIpPerMinute} requests per minute per client`);
    request.auth = { orgId: '', keyId: 'public', scopes: new Set([DOOR_SCOPE.public]), source: 'api' };
  };
  return [browserMustSayOrigin, allowedOrigin(opts.origins, opts.cors), perIp];
}
