import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Provider } from '../../modules/telematics/providers/catalog.js';
import type { FleetBehaviour } from './fleet-behaviour.js';
import type { TokenStore } from './tokens.js';

/** What every simulated vendor's routes share: the clock, fleet shape, tokens and the reject switch. */
export interface SimContext {
  now(): Date;
  fleetSize: number;
  pageSize: number;
  tokens: TokenStore;
  /** True while the provider's mode is `reject`: every credential is refused. */
  rejecting(provider: string): boolean;
  /** The account a request speaks for (API key, Basic user, or the account its bearer token was issued to); null if none. */
  accountOf(request: FastifyRequest): string | null;
  /** How the fleet a request reads behaves (empty: as the simulator always has). */
  fleet(provider: string, request: FastifyRequest): FleetBehaviour;
  /** How one account's fleet behaves, for requests that name the account in their body or query (token, authorize). */
  fleetOf(provider: string, account: string | undefined): FleetBehaviour;
}

/** The request's path under the provider's prefix (and the other host's), without its query. */
export function localPath(request: FastifyRequest, provider: Provider): string {
  const path = request.url.split('?')[0] ?? '';
  const at = path.indexOf(`/${provider.id}/`);
  return at < 0 ? path : path.slice(at + provider.id.length + 1);
}

/** Adds one provider's routes to a scope already prefixed with `/<provider id>`. */
export type RegisterRoutes = (app: FastifyInstance, provider: Provider, ctx: SimContext) => void;

/** The only credentials the simulator refuses (besides everything, in `reject` mode). */
export const WRONG_PASSWORD = 'wrong-password';
export const WRONG_KEY = 'wrong-key';

const xmlEscape = (text: string): string =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** A 401 the way the vendor says it: an XML error document for XML feeds, JSON otherwise. */
export function refuse(reply: FastifyReply, provider: Provider, message: string): FastifyReply {
  reply.code(401);
  if (provider.auth === 'basic') reply.header('www-authenticate', `Basic realm="${provider.id}"`);
  if (provider.format === 'xml') {
    return reply
      .type('application/xml')
      .send(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>Unauthorized</Code><Message>${xmlEscape(message)}</Message></Error>`);
  }
  return reply.send({ error: 'unauthorized', message });
}

/** RFC 6749 section 5.2 error answer; invalid_client is a 401, the rest 400. */
export function oauthError(reply: FastifyReply, error: string, description: string): FastifyReply {
  return reply.code(error === 'invalid_client' ? 401 : 400).send({ error, error_description: description });
}

export function basicCredentials(request: FastifyRequest): { user: string; password: string } | undefined {
  const header = request.headers.authorization;
  if (header === undefined || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header !== undefined && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
}

/** A non-empty string field of a form or JSON body, or of the query. */
export function field(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
