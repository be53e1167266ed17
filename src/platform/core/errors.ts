/** The closed list of error codes and the HTTP status each maps to; each has its section in docs/errors.md. */
export const ERROR_STATUS = {
  invalid_input: 400,
  unauthorized: 401,
  missing_scope: 403,
  forbidden_origin: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  /** Another request changed the same thing first (or holds it): read it again and retry. */
  concurrent_change: 409,
  /** A record with the same unique name (SKU, PO number, slug, partner) exists. */
  already_exists: 409,
  /** The status cannot move from where it is to the one asked (details: requested, status, allowed). */
  invalid_transition: 409,
  /** The telematics connection is not in a state that allows the call (disconnected, paused, reauth required). */
  connection_not_active: 409,
  /** The vendor's request budget for the connection is spent for now (Retry-After). */
  poll_budget_exhausted: 409,
  /** The connect token was used already. */
  token_used: 409,
  /** An existing object's rows do not fit a new definition. */
  rows_do_not_fit: 409,
  /** An interchange with this control number came before with other content. */
  duplicate_control_number: 409,
  /** Answers stored before the 409 codes were split (idempotency replays, EDI resends); no longer produced. */
  conflict: 409,
  idempotency_in_flight: 409,
  /** A replay of a call whose answer held a secret shown once (a key, a connect token): details name what it created. */
  secret_shown_once: 409,
  /** The connect token expired. */
  token_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** The Idempotency-Key was used before with a different request. */
  idempotency_key_reused: 422,
  /** An order line (or claim) names a SKU the org's catalog does not have. */
  unknown_sku: 422,
  /** An order line names a SKU that is inactive or discontinued. */
  inactive_sku: 422,
  /** An order line's quantity is outside what the order rules take. */
  invalid_quantity: 422,
  /** An order line's unit price is outside what the order rules take. */
  invalid_price: 422,
  /** An order's subtotal is beyond what the gateway can total exactly. */
  order_total_too_large: 422,
  /** An order built from EDI input breaks the order rules. */
  order_invalid: 422,
  /** Rows of an object write do not fit its definition (details: each row's problems). */
  row_invalid: 422,
  /** The provider cannot be connected through the gateway (the vendor links accounts itself). */
  provider_not_connectable: 422,
  /** The provider keeps no history the gateway can replay. */
  history_unavailable: 422,
  /** The trading partner requires segments the status change does not carry. */
  partner_requirements_unmet: 422,
  /** The interchange cannot be taken as such: its header (ISA) is unreadable, or the body holds too many. */
  interchange_invalid: 422,
  /** The interchange's sender (ISA05/ISA06) is not a trading partner of the org. */
  unknown_partner: 422,
  /** The interchange's receiver (ISA07/ISA08) is not the org's interchange id. */
  wrong_receiver: 422,
  /** No transaction set of the interchange was accepted (details: the documents and findings). */
  interchange_rejected: 422,
  credentials_rejected: 422,
  /** Answers stored before the 422 codes were split (idempotency replays, EDI resends); no longer produced. */
  unprocessable: 422,
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

/** Where each code is explained: a page of the source tree (docs/errors.md), one anchor per code. */
export const ERROR_DOCS_PATH = 'docs/errors.md';
export const docUrlOf = (code: ErrorCode): string => `${ERROR_DOCS_PATH}#${code}`;

/** A dotted input path (`lines.2.sku`, a schema issue's) in the notation `param` uses: `lines[2].sku`. */
export function paramOf(path: readonly (string | number)[] | string): string {
  const parts = typeof path === 'string' ? path.split('.') : path.map(String);
  return parts.reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`), '');
}

/** The first `{ path }` of an issue list: the input a list of problems names first. */
function firstIssuePath(details: unknown): string | undefined {
  const first: unknown = Array.isArray(details) ? details[0] : undefined;
  const path = typeof first === 'object' && first !== null ? (first as { path?: unknown }).path : undefined;
  return typeof path === 'string' && path !== '' ? paramOf(path) : undefined;
}

/**
 * The one error type every layer throws; the error handler turns it into the envelope. `param` names the offending
 * input (`lines[2].sku`, `status`, `Idempotency-Key`); left out, it is the first path of an issue list in `details`.
 */
export class AppError extends Error {
  readonly status: number;
  readonly param: string | undefined;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
    param?: string,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.param = param ?? firstIssuePath(details);
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const invalidInput = (message: string, details?: unknown, param?: string): AppError => new AppError('invalid_input', message, details, undefined, param);

/**
 * A status change the state machine refuses, the same on every resource: 409 `invalid_transition`, the allowed next
 * states in the message and in `details` ({ requested, status, allowed }), `param` the field that asked.
 */
export function invalidTransition(subject: string, from: string, requested: string, allowed: readonly string[], param = 'status'): AppError {
  const next = allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : `${from} is final`;
  return new AppError('invalid_transition', `${subject} cannot move from ${from} to ${requested} (${next})`, { requested, status: from, allowed: [...allowed] }, undefined, param);
}
