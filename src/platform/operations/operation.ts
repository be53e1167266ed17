import type { z } from 'zod';
import type { AuthContext } from '../auth/scopes.js';
import type { Db, Executor, Tx } from '../db/schema.js';
import type { ErrorCode } from '../core/errors.js';
import type { PublicDelivery } from '../outbox/deliveries.service.js';

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

/** Why an operator operation is not an MCP tool (agents hold API keys, not the operator's token). */
export const OPERATOR_NOT_A_TOOL = "an operator call made with GATEWAY_ADMIN_TOKEN, not with an organisation's API key";

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
 * What a replay says in place of an answer holding a secret shown once (a key's plaintext, a connect token): the
 * secret is stored nowhere but as a hash, so the idempotency record keeps this instead (409 `secret_shown_once`).
 */
export interface SecretShownOnce {
  /** What the first call created, for a person: `API key key_…`. */
  created: string;
  /** The created record's id, when it has one, and when the secret stops working, when it does. */
  details: { id?: string; expires_at?: string | null };
  /** What to do now that the secret is lost: `revoke it (…) and issue another with a new Idempotency-Key`. */
  instead: string;
}

/** What a read's handler works with: the caller, its org and the database (no write transaction). */
export interface ReadContext {
  auth: AuthContext;
  orgId: string;
  db: Executor;
}

/** What a write's handler works with: the transaction the invoker opened, which it commits with the call's outcome. */
export interface WriteContext {
  auth: AuthContext;
  orgId: string;
  tx: Tx;
}

/**
 * What a write in steps works with (it commits several transactions, e.g. an EDI interchange or a vendor poll): the
 * database, and `settle`, which records the call's answer in the transaction of its last step (the invoker refuses a
 * success that was not settled).
 */
export interface StepsContext {
  auth: AuthContext;
  orgId: string;
  db: Db;
  settle: Settle;
}

/** Records a call's answer in the transaction of its last step (`tx`), so it commits with the change it answers. */
export type Settle = (tx: Executor, answer: unknown) => Promise<void>;

type Input<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType> = { params: z.output<P>; query: z.output<Q>; body: z.output<B> };
type Answer<O extends z.ZodObject, K extends string> = [K] extends [never] ? z.output<O> : z.output<O>[K & keyof z.output<O>];

/** One API operation as written in a module: REST route, MCP tool and OpenAPI operation are generated from it. */
interface OperationSpec<
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
  /** Checked once, by the invoker, before the input is read. */
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
  /** The output field the handler's answer goes under (`product`); without it the answer is the whole output. */
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
  example: OperationExample;
  /**
   * Refusals that need no body (a rule scope checked against a stored definition), run by the REST door before it reads
   * the body, so a caller without the right is answered at once and the connection closed. The handler checks again.
   */
  beforeBody?: (auth: AuthContext, params: z.output<P>) => Promise<void>;
  /** The success answer holds a secret shown once: replays with the same Idempotency-Key answer this instead. */
  shownOnce?: (output: z.output<O>) => SecretShownOnce;
  mcp?: McpShape;
  absent?: DoorException;
}

type ReadSpec<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType, O extends z.ZodObject, K extends keyof z.output<O> & string> =
  OperationSpec<P, Q, B, O, K> & { handle: (ctx: ReadContext, input: Input<P, Q, B>) => Promise<Answer<O, K>> };

type WriteSpec<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType, O extends z.ZodObject, K extends keyof z.output<O> & string> =
  OperationSpec<P, Q, B, O, K> & {
    hints: OperationHints;
    handle: (ctx: WriteContext, input: Input<P, Q, B>) => Promise<Answer<O, K>>;
    /**
     * The answer once the hub events the change wrote were tried right after commit (the answer recorded for replay is
     * the one at commit). Without it the answer does not show delivery.
     */
    afterDelivery?: (answer: Answer<O, K>, delivery: PublicDelivery) => Answer<O, K>;
  };

type StepsSpec<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType, O extends z.ZodObject, K extends keyof z.output<O> & string> =
  OperationSpec<P, Q, B, O, K> & { hints: OperationHints; handle: (ctx: StepsContext, input: Input<P, Q, B>) => Promise<Answer<O, K>> };

/** An operation as the doors and the invoker see it, its schema types erased; `unit` says who holds the transaction. */
export type Operation = OperationSpec & { hints: OperationHints } & (
    | { unit: 'read'; handle: (ctx: ReadContext, input: OperationInput) => Promise<unknown> }
    | { unit: 'write'; handle: (ctx: WriteContext, input: OperationInput) => Promise<unknown>; afterDelivery?: (answer: unknown, delivery: PublicDelivery) => unknown }
    | { unit: 'steps'; handle: (ctx: StepsContext, input: OperationInput) => Promise<unknown> }
  );

export interface OperationInput {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** The hints of every read. */
export const READ: OperationHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false };

/** A read: no write transaction; the handler reads through `ctx.db`. Its MCP hints are READ. */
export function defineRead<
  P extends z.ZodObject = z.ZodObject<Record<string, never>>,
  Q extends z.ZodObject = z.ZodObject<Record<string, never>>,
  B extends z.ZodType = z.ZodUndefined,
  O extends z.ZodObject = z.ZodObject,
  K extends keyof z.output<O> & string = never,
>(op: ReadSpec<P, Q, B, O, K>): Operation {
  return { ...op, hints: READ, unit: 'read' } as unknown as Operation;
}

/**
 * A write in one transaction the invoker owns: it opens it, hands the handler `ctx.tx`, records the idempotency outcome
 * in it, commits, then delivers the hub events the change wrote.
 */
export function defineWrite<
  P extends z.ZodObject = z.ZodObject<Record<string, never>>,
  Q extends z.ZodObject = z.ZodObject<Record<string, never>>,
  B extends z.ZodType = z.ZodUndefined,
  O extends z.ZodObject = z.ZodObject,
  K extends keyof z.output<O> & string = never,
>(op: WriteSpec<P, Q, B, O, K>): Operation {
  return { ...op, unit: 'write' } as unknown as Operation;
}

/** A write that commits in steps of its own (see StepsContext): the last step settles the answer through `ctx.settle`. */
export function defineSteps<
  P extends z.ZodObject = z.ZodObject<Record<string, never>>,
  Q extends z.ZodObject = z.ZodObject<Record<string, never>>,
  B extends z.ZodType = z.ZodUndefined,
  O extends z.ZodObject = z.ZodObject,
  K extends keyof z.output<O> & string = never,
>(op: StepsSpec<P, Q, B, O, K>): Operation {
  return { ...op, unit: 'steps' } as unknown as Operation;
}

/** The operation's output for what its service answered. */
export function outputOf(op: Operation, value: unknown): Record<string, unknown> {
  return (op.result === undefined ? value : { [op.result]: value }) as Record<string, unknown>;
}


export function audienceOf(op: Operation): Audience {
  return op.audience ?? 'api';
}

/**
 * Whether calls of this operation take an idempotency key: every operation that changes something (keys are per org, the
 * operator's its own), but the public door's, whose single-use connect token already answers a retry (409 token_used).
 */
export function takesIdempotencyKey(op: Operation): boolean {
  return op.unit !== 'read' && audienceOf(op) !== 'public';
}

export function scopeText(op: Operation): string {
  return typeof op.scope === 'string' ? op.scope : op.scope.describe;
}
