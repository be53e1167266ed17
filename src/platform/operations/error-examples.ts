import { docUrlOf, ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import { audienceOf, type Operation, scopeText } from './operation.js';

type Json = Record<string, unknown>;

/** What the gateway says for each code, as it words it; `param` and `details` where the code carries them. */
const SAID: Partial<Record<ErrorCode, (op: Operation) => Json>> = {
  invalid_input: () => ({ error: 'limit: must be at most 200', param: 'limit', details: [{ path: 'limit', message: 'must be at most 200' }] }),
  unauthorized: (op) => ({ error: UNAUTHORIZED[audienceOf(op)] }),
  missing_scope: (op) => ({ error: `missing scope: ${scopeText(op)}` }),
  forbidden_origin: () => ({ error: 'origin not allowed' }),
  not_found: (op) => ({ error: `${op.path.split('/').filter((s) => s && !s.startsWith(':') && !/^v\d+$/.test(s)).at(-1) ?? 'record'} not found` }),
  method_not_allowed: () => ({ error: 'method PUT not allowed on /v1/orders' }),
  already_exists: () => ({ error: 'an order with po_number PO-1001 already exists', param: 'po_number' }),
  concurrent_change: () => ({ error: 'order PO-1001 is being changed by another request; try again' }),
  invalid_transition: () => ({
    error: 'order PO-1001 cannot move from delivered to processing',
    param: 'status',
    details: { requested: 'processing', status: 'delivered', allowed: [] },
  }),
  idempotency_in_flight: () => ({ error: 'a request with Idempotency-Key retry-7f3c2a is in progress', param: 'Idempotency-Key' }),
  idempotency_key_reused: () => ({ error: 'Idempotency-Key retry-7f3c2a was already used with a different request', param: 'Idempotency-Key' }),
  unknown_sku: () => ({
    error: 'line 1: SKU MICH-999 is not in the catalog',
    param: 'lines[0].sku',
    details: [{ path: 'lines.0.sku', index: 0, sku: 'MICH-999', code: 'unknown_sku', message: 'SKU MICH-999 is not in the catalog' }],
  }),
  row_invalid: () => ({ error: 'row 0: year must be at least 1950', details: [{ row: 0, field: 'year', message: 'must be at least 1950' }] }),
  rate_limited: () => ({ error: 'rate limit of 600 requests per minute exceeded' }),
  payload_too_large: () => ({ error: 'request body is too large' }),
  unsupported_media_type: () => ({ error: 'unsupported content-type' }),
};

const UNAUTHORIZED: Record<ReturnType<typeof audienceOf>, string> = {
  api: 'missing API key: send Authorization: Bearer <key>',
  operator: 'missing admin token',
  public: 'missing connect token',
  portal: 'missing portal key: send X-Portal-Key: <key>',
};

/** A whole error answer of `code`, as the gateway would send it from `op` (OpenAPI shows it instead of invented values). */
export function errorExample(code: ErrorCode, op: Operation): Json {
  const said = SAID[code]?.(op) ?? { error: code.replaceAll('_', ' ') };
  const { details, ...rest } = said;
  return {
    ok: false,
    status: ERROR_STATUS[code],
    ...rest,
    code,
    request_id: '3f2b8c1e-5d4a-4b7e-9c21-7a0d6e4f1b90',
    doc_url: docUrlOf(code),
    ...(details === undefined ? {} : { details }),
  };
}
