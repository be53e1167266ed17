import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, type ErrorCode } from './errors.js';

export interface ErrorBody {
  ok: false;
  status: number;
  error: string;
  code: ErrorCode;
  request_id: string;
  details?: unknown;
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  return {
    ok: false,
    status: err.status,
    error: err.message,
    code: err.code,
    request_id: requestId,
    ...(err.details === undefined ? {} : { details: err.details }),
  };
}

/** Maps whatever was thrown to one AppError: ours as is, Fastify's by status, anything else as internal. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fe = err as Partial<FastifyError> & { validation?: unknown };
  if (hasZodFastifySchemaValidationErrors(err)) {
    const details = err.validation.map((v) => ({
      path: v.instancePath.replace(/^\//, '').replaceAll('/', '.'),
      message: v.message ?? 'invalid',
    }));
    const where = err.validationContext ?? 'body';
    return new AppError('invalid_input', `invalid ${where}: ${details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ')}`, details);
  }
  if (isResponseSerializationError(err)) return new AppError('internal', 'internal error');
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
  return new AppError('internal', 'internal error');
}

export function registerErrorHandling(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err);
    if (appErr.status >= 500) request.log.error({ err }, 'request failed');
    else request.log.info({ code: appErr.code }, appErr.message);
    if (appErr.headers) void reply.headers(appErr.headers);
    return reply.status(appErr.status).send(errorBody(appErr, request.id));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const methods = allowedMethods(path);
    const err = methods.length > 0
      ? new AppError('method_not_allowed', `method ${request.method} not allowed on ${path}`, undefined, { allow: methods.join(', ') })
      : new AppError('not_found', `route ${request.method} ${path} not found`);
    if (err.headers) void reply.headers(err.headers);
    return reply.status(err.status).send(errorBody(err, request.id));
  });
}

/** Errors Fastify raises before routing (a malformed URL, an over-long path parameter), in the same envelope. */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appErr = err.statusCode !== undefined && err.statusCode < 500 ? new AppError('invalid_input', `invalid request: ${err.message}`) : toAppError(err);
  void reply.status(appErr.status).header('x-request-id', request.id).send(errorBody(appErr, request.id));
}
