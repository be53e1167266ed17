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

/** The CORS answer for an allowlisted browser origin. */
export interface CorsOptions {
  /** Methods a preflight allows (Access-Control-Allow-Methods). */
  methods: readonly string[];
  /** Request headers a preflight allows (Access-Control-Allow-Headers). */
  allowHeaders: readonly string[];
  /** Response headers the page may read (Access-Control-Expose-Headers). */
  exposeHeaders: readonly string[];
  /** How long a browser may cache the preflight (Access-Control-Max-Age). */
  maxAgeSeconds: number;
}

type OriginVerdict = { kind: 'none' } | { kind: 'listed'; origin: string } | { kind: 'refused' };

function originChecker(allowed: readonly string[]): (request: FastifyRequest) => OriginVerdict {
  const origins = new Set(allowed.map(normalize).filter((o): o is string => o !== undefined));
  return (request) => {
    const origin = request.headers.origin;
    if (origin === undefined) return { kind: 'none' };
    const normalized = normalize(origin);
    return normalized !== undefined && origins.has(normalized) ? { kind: 'listed', origin } : { kind: 'refused' };
  };
}

const refused = () => new AppError('forbidden_origin', 'origin not allowed');

/**
 * onRequest hook: a request that carries an Origin (a browser) must come from an origin on the list, compared as
 * scheme + host + port; no Origin means a server-side client, which is fine. No wildcard, as the spec requires.
 * With `cors`, a listed origin's responses (errors included) carry the CORS headers that let the page read them.
 */
export function allowedOrigin(allowed: readonly string[], cors?: CorsOptions) {
  const check = originChecker(allowed);
  const expose = cors?.exposeHeaders.join(', ');
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const verdict = check(request);
    if (cors) void reply.header('vary', 'origin');
    if (verdict.kind === 'listed' && expose !== undefined) {
      void reply.headers({ 'access-control-allow-origin': verdict.origin, 'access-control-expose-headers': expose });
    }
    done(verdict.kind === 'refused' ? refused() : undefined);
  };
}

/**
 * Handler for the path's OPTIONS route (which must not require a key: browsers send preflights without credentials):
 * 204 with the CORS answer for a listed origin, 403 in the envelope for any other, 204 with `Allow` without an Origin.
 */
export function corsPreflight(allowed: readonly string[], cors: CorsOptions) {
  const check = originChecker(allowed);
  const answer = {
    'access-control-allow-methods': cors.methods.join(', '),
    'access-control-allow-headers': cors.allowHeaders.join(', '),
    'access-control-max-age': String(cors.maxAgeSeconds),
  };
  const allow = [...cors.methods, 'OPTIONS'].join(', ');
  return (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const verdict = check(request);
    void reply.header('vary', 'origin');
    if (verdict.kind === 'refused') throw refused();
    if (verdict.kind === 'listed') void reply.headers({ ...answer, 'access-control-allow-origin': verdict.origin });
    return reply.header('allow', allow).status(204).send();
  };
}
