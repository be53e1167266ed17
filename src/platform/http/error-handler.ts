import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_RETRY_AFTER_SECONDS, isTransientDatabaseError } from '../db/faults.js';
import { redactKeys } from './access-log.js';
import { AppError, docUrlOf, type ErrorCode } from '../core/errors.js';

/** The realm every 401 challenges with; without a challenge, MCP clients fall back to an OAuth discovery flow. */
const AUTH_REALM = 'tire-gateway';

interface ErrorBody {
  ok: false;
  status: number;
  error: string;
  code: ErrorCode;
  request_id: string;
  details?: unknown;
  param?: string;
  doc_url: string;
}

function errorBody(err: AppError, requestId: string): ErrorBody {
  return {
    ok: false,
    status: err.status,
    error: err.message,
    code: err.code,
    request_id: requestId,
    ...(err.details === undefined ? {} : { details: err.details }),
    ...(err.param === undefined ? {} : { param: err.param }),
    doc_url: docUrlOf(err.code),
  };
}

/** Maps whatever was thrown to one AppError: ours as is, Fastify's by status, anything else as internal. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fe = err as Partial<FastifyError>;
  switch (fe.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_input', 'request body is empty but content-type is application/json');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'unsupported content-type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_input', 'content-length does not match the body');
    default:
      break;
  }
  if (fe.statusCode === 400 || (err instanceof SyntaxError && fe.statusCode === undefined)) {
    return new AppError('invalid_input', fe.message ? `invalid request: ${fe.message}` : 'invalid request');
  }
  if (fe.statusCode === 413) return new AppError('payload_too_large', 'request body is too large');
  if (fe.statusCode === 415) return new AppError('unsupported_media_type', 'unsupported content-type');
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError('invalid_input', fe.message ?? 'invalid request');
  }
  // The driver's message names tables, hosts or SQL: the caller learns only that it may retry.
  if (isTransientDatabaseError(err)) {
    return new AppError('unavailable', 'the database is busy or unreachable; retry shortly', undefined, { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
  }
  return new AppError('internal', 'internal error');
}

/** RFC 6750: a bare challenge when no credentials came, `invalid_token` when the ones sent were refused. */
function bearerChallenge(request: FastifyRequest): string {
  return request.headers.authorization === undefined ? `Bearer realm="${AUTH_REALM}"` : `Bearer realm="${AUTH_REALM}", error="invalid_token"`;
}

/**
 * Writes the envelope: the error's own headers, and the Bearer challenge on every 401. An error answered while the body
 * is still arriving (a 401, 413 or 429 before the upload ends) closes the connection once written, rather than Node
 * reading the rest of a body nobody wants, at whatever pace the client sends it.
 */
function sendError(request: FastifyRequest, reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) void reply.headers(err.headers);
  if (request.raw.complete === false) void reply.header('connection', 'close');
  if (err.code === 'unauthorized') void reply.header('www-authenticate', bearerChallenge(request));
  return reply.status(err.status).send(errorBody(err, request.id));
}

export function registerErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err);
    if (appErr.status >= 500) request.log.error({ err }, 'request failed');
    // The message can echo the caller's input (a SKU in the path), so a key sent by mistake is redacted here too.
    else request.log.info({ code: appErr.code }, redactKeys(appErr.message));
    return sendError(request, reply, appErr);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const methods = allowedMethods(path);
    // A route that matched and found nothing (a missing static asset) is a plain 404, not a wrong method.
    const routed = methods.includes(request.method) || (request.method === 'HEAD' && methods.includes('GET'));
    const err =
      methods.length > 0 && !routed
        ? new AppError('method_not_allowed', `method ${request.method} not allowed on ${path}`, undefined, { allow: methods.join(', ') })
        : new AppError('not_found', routed ? `${path} not found` : `route ${request.method} ${path} not found`);
    return sendError(request, reply, err);
  });
}

/** Errors Fastify raises before routing (a malformed URL, an over-long path parameter), in the same envelope. */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appErr = err.statusCode !== undefined && err.statusCode < 500 ? new AppError('invalid_input', `invalid request: ${err.message}`) : toAppError(err);
  void sendError(request, reply.header('x-request-id', request.id), appErr);
}

/** What Node's HTTP parser refused, by its error code; the parser answers before Fastify sees a request. */
function clientErrorFor(code: string): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large', 'request headers are too large (the URL counts toward the limit)');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large', 'chunk extensions are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'the request was not received in time');
    default:
      return new AppError('invalid_input', 'malformed HTTP request');
  }
}

/**
 * Fastify's `clientErrorHandler` (bound to the instance): what Node's parser refuses (431, 408, malformed requests)
 * gets the envelope too, written straight to the socket since there is no request or reply. The raw packet is
 * never logged: it can hold an Authorization header.
 */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const appErr = clientErrorFor(err.code);
  const requestId = answerOnSocket(socket, appErr);
  this.log.info({ reqId: requestId, code: appErr.code, parser: err.code }, appErr.message);
  socket.destroy(err);
}

/**
 * Writes the envelope of `err` straight to a socket that has no request or reply (the caller destroys it next); returns
 * the request id it named. Written only when no response on this connection has started, as Node does, or the peer
 * would read garbage.
 */
export function answerOnSocket(socket: Socket, err: AppError): string {
  const requestId = randomUUID();
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify(errorBody(err, requestId));
    const extra = Object.entries(err.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(
      `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-content-type-options: nosniff\r\ncache-control: no-store\r\n${extra}` +
        `x-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  return requestId;
}
