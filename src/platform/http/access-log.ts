import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

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

/** One access line per request (method, route url, status, time) instead of Fastify's two; the opening line stays at debug. */
export class AccessLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const fields = { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
