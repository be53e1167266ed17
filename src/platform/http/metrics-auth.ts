import type { onRequestHookHandler } from 'fastify';
import { AppError } from '../core/errors.js';
import { bearerMatcher } from './admin-auth.js';

/** The loopback addresses, as request.ip spells them (an IPv4 client on a dual-stack socket included). */
function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

/**
 * onRequest hook of GET /metrics, which shows routes, volumes and the process's internals: with METRICS_TOKEN set only
 * `Authorization: Bearer <METRICS_TOKEN>` opens it, from anywhere; without one only a loopback client does (request.ip,
 * so behind TRUST_PROXY the forwarded address, and a proxy on the same machine does not open it to the world).
 */
export function metricsAuth(token: string | undefined): onRequestHookHandler {
  const matches = token === undefined ? undefined : bearerMatcher(token);
  return (request, _reply, done) => {
    if (matches === undefined) {
      done(isLoopback(request.ip) ? undefined : new AppError('unauthorized', 'metrics answer loopback clients only: set METRICS_TOKEN to read them from elsewhere'));
      return;
    }
    const header = request.headers.authorization;
    done(matches(header) ? undefined : new AppError('unauthorized', header === undefined ? 'missing metrics token' : 'invalid metrics token'));
  };
}
