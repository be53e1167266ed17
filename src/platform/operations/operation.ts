import type { z } from 'zod';
import type { AuthContext } from '../auth/scopes.js';
import type { ErrorCode } from '../http/errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** MCP tool annotations, stated for every operation (the spec's hints default to the unsafe side when left out). */
export interface OperationHints {
  readOnly: boolean;
  /** Can remove or overwrite what exists (cancel an order, close a claim, replace a product's fields). */
  destructive: boolean;
  /** The same call twice leaves the same state as once. */
  idempotent: boolean;
  /** Reaches outside systems (the hub, a trading partner). */
  openWorld: boolean;
}

/** A body sent as raw bytes (X12) rather than JSON: on MCP it is the string argument `field`. */
export interface RawBody {
  field: string;
  mediaTypes: readonly string[];
  maxBytes: number;
  description: string;
}

/** Which keys a call must hold: a static scope, or a rule (objects:<key>:read) with the text that documents it. */
export type OperationScope = string | { describe: string; visibleTo: (auth: AuthContext) => boolean };

/**
 * Who calls an operation, and so which door serves it:
 * - `api` (the default): API keys, on /v1 REST and as an MCP tool;
 * - `operator`: the hub/operator with GATEWAY_ADMIN_TOKEN, REST only; the route does not exist while no token is set;
 * - `public`: no key (POST /connect), behind the public guard: origin allowlist, per-IP limit, small bodies;
 * - `portal`: a dealer site's portal key (X-Portal-Key) under /api/portal/v1, from the key's listed origins only.
 * Non-API operations name their door's pseudo-scope (`admin`, `public`, `portal`): only the door grants it, never a key.
 */
export type Audience = 'api' | 'operator' | 'public' | 'portal';

/** The pseudo-scope each non-API door grants. */
/** Why an operator operation is not an MCP tool (agents hold API keys, not the operator's token). */
export const OPERATOR_NOT_A_TOOL = "an operator call made with GATEWAY_ADMIN_TOKEN, not with an organisation's API key";

export const DOOR_SCOPE = { operator: 'admin', public: 'public', portal: 'portal' } as const;

/** Where an operation is deliberately absent, and why (shown to the parity test and the docs). */
export interface DoorException {
  rest?: string;
  mcp?: string;
}

/** The MCP shape of an operation when REST's cannot be merged as is, with the mapping back to REST's parts. */
export interface McpShape<T extends z.ZodObject = z.ZodObject> {
  input: T;
  toParts: (args: z.output<T>) => RequestParts;
  why: string;
}

export interface RequestParts {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** An example call: the parts a client sends and the payload it gets back (checked against the schemas by a test). */
export interface OperationExample {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  response: Record<string, unknown>;
}

/**
 * One API operation, written once: REST route, MCP tool and OpenAPI operation are generated from it.
 * `handle` gets the validated parts; the service behind it enforces scope and org scoping again.
 */
export interface Operation<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
  O extends z.ZodObject = z.ZodObject,
  K extends keyof z.output<O> & string = never,
> {
  /** `<resource>_<action>`: REST operationId and MCP tool name. */
  name: string;
  method: HttpMethod;
  /** Full path with `:snake_case` parameters, e.g. `/v1/orders/:id_or_po_number/status`. */
  path: string;
  scope: OperationScope;
  /** Short, imperative: OpenAPI summary and MCP title. */
  summary: string;
  /** Written for a person and an agent alike: what it does, when to use it, what comes back. */
  description: string;
  params?: P;
  query?: Q;
  body?: B;
  rawBody?: RawBody;
  /** A JSON body cap below the gateway's BODY_LIMIT_BYTES (413 beyond). */
  maxBodyBytes?: number;
  /** Defaults to `api`. */
  audience?: Audience;
  /** For `public` operations: requests per minute per client IP. */
  perIpPerMinute?: number;
  output: O;
  /** The output field the service's answer goes under (`product`); without it the answer is the whole output. */
  result?: K;
  /** The success status; `statusOf` picks another documented one per result (202 while queued). */
  status: number;
  /** What the success answer holds, for the OpenAPI response description ("the new order."). */
  returns: string;
  statusOf?: (output: z.output<O>) => number;
  /** Other success statuses and what they mean. */
  otherSuccess?: Record<number, string>;
  /** Error codes this operation returns beyond the ones every authenticated call can (400, 401, 403, 415, 429). */
  errors: Partial<Record<ErrorCode, string>>;
  hints: OperationHints;
  example: OperationExample;
  mcp?: McpShape;
  absent?: DoorException;
  /** The service call. What it answers is also what a service records for replay inside its write transaction. */
  handle: (
    auth: AuthContext,
    input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> },
  ) => Promise<[K] extends [never] ? z.output<O> : z.output<O>[K]>;
}

/** Keeps a definition's schema and handler types tied together, then erases them for the lists. */
export function defineOperation<
  P extends z.ZodObject = z.ZodObject<Record<string, never>>,
  Q extends z.ZodObject = z.ZodObject<Record<string, never>>,
  B extends z.ZodType = z.ZodUndefined,
  O extends z.ZodObject = z.ZodObject,
  K extends keyof z.output<O> & string = never,
>(op: Operation<P, Q, B, O, K>): Operation {
  return op as unknown as Operation;
}

/** The operation's output for what its service answered. */
export function outputOf(op: Operation, value: unknown): Record<string, unknown> {
  return (op.result === undefined ? value : { [op.result]: value }) as Record<string, unknown>;
}

export const READ: OperationHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

export function audienceOf(op: Operation): Audience {
  return op.audience ?? 'api';
}

/** Whether calls of this operation take an idempotency key: every API operation that changes something (keys are per org). */
export function takesIdempotencyKey(op: Operation): boolean {
  return !op.hints.readOnly && audienceOf(op) === 'api';
}

export function scopeText(op: Operation): string {
  return typeof op.scope === 'string' ? op.scope : op.scope.describe;
}
