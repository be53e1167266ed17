/** The closed list of error codes and the HTTP status each maps to. */
export const ERROR_STATUS = {
  invalid_input: 400,
  unauthorized: 401,
  missing_scope: 403,
  forbidden_origin: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_in_flight: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  credentials_rejected: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  upstream_failure: 502,
  /** A vendor (telematics) could not be reached: refused connection, unknown host, reset. */
  vendor_unreachable: 502,
  /** A vendor answered with an error status (in details.status). */
  vendor_error: 502,
  /** A vendor answered with a document the gateway cannot read (details.path, details.reason). */
  vendor_document_invalid: 502,
  unavailable: 503,
  upstream_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error type every layer throws; the error handler turns it into the envelope. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const invalidInput = (message: string, details?: unknown): AppError => new AppError('invalid_input', message, details);
export const conflict = (message: string, details?: unknown): AppError => new AppError('conflict', message, details);
export const unprocessable = (message: string, details?: unknown): AppError => new AppError('unprocessable', message, details);
