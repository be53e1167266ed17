import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from './errors.js';

function normalize(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/**
 * onRequest hook: a request that carries an Origin (a browser) must come from an origin on the list, compared as
 * scheme + host + port; no Origin means a server-side client, which is fine. No wildcard, as the spec requires.
 */
export function allowedOrigin(allowed: readonly string[]) {
  const origins = new Set(allowed.map(normalize).filter((o): o is string => o !== undefined));
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const origin = request.headers.origin;
    const normalized = origin === undefined ? undefined : normalize(origin);
    const refused = origin !== undefined && (normalized === undefined || !origins.has(normalized));
    done(refused ? new AppError('forbidden_origin', 'origin not allowed') : undefined);
  };
}
