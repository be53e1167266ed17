import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../core/errors.js';

/** An Origin header as scheme + host + port, the form allowlists are compared in; undefined for `null` or garbage. */
export function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/**
 * A browser always says where it runs: Origin on a cross-origin request, Sec-Fetch-* on every request in current
 * browsers. A request with Sec-Fetch-* but no Origin is a browser we cannot place (docs/decisions.md).
 */
export function isPlacelessBrowser(request: FastifyRequest): boolean {
  return request.headers.origin === undefined && (request.headers['sec-fetch-site'] !== undefined || request.headers['sec-fetch-mode'] !== undefined);
}

/**
 * The origin a request comes from: its Origin header, or, for a browser's same-origin request that leaves it out (a
 * GET from a page the gateway serves), the gateway's own, which Sec-Fetch-Site (no page can set it) vouches for.
 */
export function requestOrigin(request: FastifyRequest): string | undefined {
  if (request.headers.origin !== undefined) return request.headers.origin;
  return request.headers['sec-fetch-site'] === 'same-origin' ? `${request.protocol}://${request.host}` : undefined;
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

/** Whether a normalised origin is allowed: a fixed list, or a lookup (the origins of every active portal key). */
type OriginList = readonly string[] | ((origin: string) => Promise<boolean>);

type OriginVerdict = { kind: 'none' } | { kind: 'listed'; origin: string } | { kind: 'refused' };

function listed(allowed: readonly string[]): (origin: string) => boolean {
  const origins = new Set(allowed.map(normalizeOrigin).filter((o): o is string => o !== undefined));
  return (origin) => origins.has(origin);
}

async function verdictOf(request: FastifyRequest, isListed: (origin: string) => boolean | Promise<boolean>): Promise<OriginVerdict> {
  const origin = request.headers.origin;
  if (origin === undefined) return { kind: 'none' };
  const normalized = normalizeOrigin(origin);
  return normalized !== undefined && (await isListed(normalized)) ? { kind: 'listed', origin } : { kind: 'refused' };
}

/** The 403 text for a browser request that hides its Origin. */
export const BROWSER_WITHOUT_ORIGIN = 'origin not allowed: a browser request must send its Origin';

export const originRefused = (): AppError => new AppError('forbidden_origin', 'origin not allowed');

/** The headers that let a listed origin's page read a response (errors included). */
export function grantCors(reply: FastifyReply, origin: string, cors: CorsOptions): void {
  void reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': cors.exposeHeaders.join(', ') });
}

/**
 * onRequest hook: a request that carries an Origin (a browser) must come from an origin on the list, compared as
 * scheme + host + port; no Origin means a server-side client, which is fine. No wildcard, as the spec requires.
 * With `cors`, a listed origin's responses (errors included) carry the CORS headers that let the page read them.
 */
export function allowedOrigin(allowed: readonly string[], cors?: CorsOptions) {
  const isListed = listed(allowed);
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const origin = request.headers.origin;
    const normalized = origin === undefined ? undefined : normalizeOrigin(origin);
    if (cors) void reply.header('vary', 'origin');
    if (origin !== undefined && (normalized === undefined || !isListed(normalized))) {
      done(originRefused());
      return;
    }
    if (origin !== undefined && cors) grantCors(reply, origin, cors);
    done();
  };
}

/**
 * Handler for the path's OPTIONS route (which must not require a key: browsers send preflights without credentials):
 * 204 with the CORS answer for a listed origin, 403 in the envelope for any other, 204 with `Allow` without an Origin.
 */
export function corsPreflight(allowed: OriginList, cors: CorsOptions) {
  const isListed = typeof allowed === 'function' ? allowed : listed(allowed);
  const answer = {
    'access-control-allow-methods': cors.methods.join(', '),
    'access-control-allow-headers': cors.allowHeaders.join(', '),
    'access-control-max-age': String(cors.maxAgeSeconds),
  };
  const allow = [...cors.methods, 'OPTIONS'].join(', ');
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const verdict = await verdictOf(request, isListed);
    void reply.header('vary', 'origin');
    if (verdict.kind === 'refused') throw originRefused();
    if (verdict.kind === 'listed') void reply.headers({ ...answer, 'access-control-allow-origin': verdict.origin });
    return reply.header('allow', allow).status(204).send();
  };
}
