import type { FastifyReply, FastifyRequest } from 'fastify';
import { levels } from 'pino';

const REDACTED = '[redacted]';
/** API keys (`trk_live_…`) and portal keys (`pk_portal_…`) wherever they appear in a URL. */
const KEY_SHAPED = /(?:trk_live_|pk_portal_)[A-Za-z0-9_-]*/g;
/**
 * Query parameters whose value is a secret whatever its shape (`api_key`, `access_token`, `client_secret`, ...), and
 * an OAuth redirect's `code` and `state` (single use, but each opens a fleet's vendor account until spent).
 */
const SECRET_NAME = /key|token|secret|passw|credential|^code$|^state$/i;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

function redactParam(pair: string): string {
  const eq = pair.indexOf('=');
  if (eq !== -1 && SECRET_NAME.test(decodedName(pair.slice(0, eq)))) return `${pair.slice(0, eq)}=${REDACTED}`;
  return redactKeys(pair);
}

/** Text that may echo a caller's input (an error message naming a SKU) with key-shaped values as `[redacted]`. */
export function redactKeys(text: string): string {
  return text.includes('trk_') || text.includes('pk_') ? text.replace(KEY_SHAPED, REDACTED) : text;
}

/**
 * The URL as it may be logged: key-shaped values and the values of secret-named query parameters become
 * `[redacted]`. Runs on every request, so a URL with no query and no key prefix is returned untouched.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return redactKeys(url);
  return `${redactKeys(url.slice(0, q))}?${url.slice(q + 1).split('&').map(redactParam).join('&')}`;
}

const { debug: DEBUG, info: INFO, error: ERROR } = levels.values as Record<'debug' | 'info' | 'error', number>;

/** The root logger (or a route's leveled one) the access lines are written on: pino's, with its level's number. */
export interface AccessLogger {
  levelVal: number;
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * The opening line, at debug. The request id is a field (`reqId`, as a per-request child would bind it), so no child
 * logger is made for it; nothing is built when debug is off.
 */
export function logIncomingRequest(log: AccessLogger, request: FastifyRequest): void {
  // A number compared, cheaper than pino's isLevelEnabled on every request.
  if (log.levelVal > DEBUG) return;
  log.debug({ reqId: request.id, method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip }, 'incoming request');
}

/** One access line per request (method, route url, status, time) instead of Fastify's two, `reqId` as a field as above. */
export function logRequestCompleted(log: AccessLogger, error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
  if (log.levelVal > (error ? ERROR : INFO)) return;
  const fields = { reqId: request.id, method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 };
  if (error) log.error({ ...fields, err: error }, 'request errored');
  else log.info(fields, 'request completed');
}
