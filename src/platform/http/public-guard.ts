import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { DOOR_SCOPE } from '../operations/operation.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { enforceRateLimit } from './api-auth.js';
import { AppError } from './errors.js';
import { allowedOrigin, type CorsOptions } from './origin.js';

export interface PublicGuardOptions {
  /** Browser origins that may call (exact scheme + host + port). */
  origins: readonly string[];
  cors: CorsOptions;
  limiter: RateLimiter;
  /** Rate-limit bucket name (one per public operation) and its requests per minute per client IP. */
  bucket: string;
  perIpPerMinute: number;
}

/**
 * A browser always says where it runs: Origin on a POST, Sec-Fetch-* on every request in current browsers. A request
 * with Sec-Fetch-* but no Origin is a browser we cannot place, so it is refused; one with neither is a server-side
 * client, which the token checks and the per-IP limit still cover (docs/decisions.md).
 */
const browserMustSayOrigin: onRequestHookHandler = (request, _reply, done) => {
  const placeless = request.headers.origin === undefined && (request.headers['sec-fetch-site'] !== undefined || request.headers['sec-fetch-mode'] !== undefined);
  done(placeless ? new AppError('forbidden_origin', 'origin not allowed: a browser request must send its Origin') : undefined);
};

/**
 * onRequest hooks of a public route (no key): the origin allowlist with its CORS grant, then the sliding-window limit
 * per client IP (request.ip: X-Forwarded-For only from the proxies TRUST_PROXY names).
 */
export function publicGuard(opts: PublicGuardOptions): [onRequestHookHandler, onRequestHookHandler, onRequestAsyncHookHandler] {
  const perIp = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const decision = await opts.limiter.check(`ip:${opts.bucket}:${request.ip}`, opts.perIpPerMinute);
    enforceRateLimit(request, reply, decision, `${opts.perIpPerMinute} requests per minute per client`);
    request.auth = { orgId: '', keyId: 'public', scopes: new Set([DOOR_SCOPE.public]), source: 'api' };
  };
  return [browserMustSayOrigin, allowedOrigin(opts.origins, opts.cors), perIp];
}
