import type { FastifyReply, FastifyRequest } from 'fastify';
import { DOOR_SCOPE } from '../auth/scopes.js';
import { PORTAL_PATH_PREFIX } from '../auth/portal-key.js';
import type { PortalKeyVerifier, VerifiedPortalKey } from '../auth/portal-key-verifier.js';
import type { RateLimiter } from '../ratelimit/rate-limiter.js';
import { enforceRateLimit } from './api-auth.js';
import { AppError } from '../core/errors.js';
import { BROWSER_WITHOUT_ORIGIN, type CorsOptions, grantCors, isPlacelessBrowser, normalizeOrigin, originRefused, requestOrigin } from './origin.js';

/** What a dealer page may send and read (the preflight's answer; methods are set per path). */
export const PORTAL_CORS: CorsOptions = {
  methods: ['GET', 'POST'],
  allowHeaders: ['content-type', 'x-portal-key', 'idempotency-key'],
  exposeHeaders: ['x-request-id', 'retry-after', 'ratelimit-policy', 'ratelimit', 'idempotent-replayed'],
  maxAgeSeconds: 600,
};

interface PortalAuthOptions {
  verifier: PortalKeyVerifier;
  limiter: RateLimiter;
}

const apiKeyRefused = () => new AppError('unauthorized', `API keys do not work on ${PORTAL_PATH_PREFIX}: send a portal key in X-Portal-Key`);

/**
 * onRequest hook of the portal door: a browser must say its Origin; the key (X-Portal-Key) must be valid and list that
 * origin; then the per-IP and per-key sliding windows. CORS headers go on every answer to a listed origin, including a
 * 401 for an origin some active key lists, so a dealer page can show why its key was refused.
 */
export function portalKeyAuth(opts: PortalAuthOptions) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    void reply.header('vary', 'origin');
    const sent = requestOrigin(request);
    if (sent === undefined && isPlacelessBrowser(request)) throw new AppError('forbidden_origin', BROWSER_WITHOUT_ORIGIN);
    const origin = sent === undefined ? undefined : normalizeOrigin(sent);
    if (sent !== undefined && origin === undefined) throw originRefused();
    const key = await verified(request, opts.verifier).catch(async (err: unknown) => {
      if (sent !== undefined && origin !== undefined && (await opts.verifier.isListedAnywhere(origin))) grantCors(reply, sent, PORTAL_CORS);
      throw err;
    });
    if (sent !== undefined && origin !== undefined) {
      if (!key.origins.has(origin)) throw originRefused();
      grantCors(reply, sent, PORTAL_CORS);
    }
    // The client's window first: one busy visitor is refused before it spends the key's budget shared by every visitor.
    const perIp = await opts.limiter.check(`portal-ip:${key.keyId}:${request.ip}`, key.ipRateLimitPerMinute);
    enforceRateLimit(request, reply, perIp, 'ip', `${key.ipRateLimitPerMinute} requests per minute per client`);
    enforceRateLimit(request, reply, await opts.limiter.check(`portal:${key.keyId}`, key.rateLimitPerMinute), 'key', `${key.rateLimitPerMinute} requests per minute`);
    request.auth = { orgId: key.orgId, keyId: key.keyId, scopes: new Set([DOOR_SCOPE.portal]), source: 'portal', dealer: key.dealer };
  };
}

function verified(request: FastifyRequest, verifier: PortalKeyVerifier): Promise<VerifiedPortalKey> {
  const header = request.headers['x-portal-key'];
  if (header === undefined && request.headers.authorization !== undefined) return Promise.reject(apiKeyRefused());
  return verifier.verify(header);
}
