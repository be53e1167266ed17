import { z } from 'zod';
import type { AuthContext } from '../auth/scopes.js';
import { requireScope } from '../auth/scopes.js';
import type { Db } from '../db/schema.js';
import { bindTransaction } from '../db/sqlite-dialect.js';
import { AppError, ERROR_STATUS, invalidInput } from '../core/errors.js';
import { invalidFromIssues } from '../core/issues.js';
import { assertDepth } from '../core/json-depth.js';
import { assertNoNul } from '../core/nul-guard.js';
import { type PublicDelivery, toPublicDelivery } from '../outbox/deliveries.service.js';
import type { DeliverAfterCommit } from '../outbox/delivery-worker.js';
import { type AfterCommit, sendAfterCommit } from '../outbox/outbox.js';
import { fingerprintOf, fingerprintOfRaw, type IdempotencyClaim, type IdempotencyStore, type StoredOutcome } from './idempotency.js';
import { audienceOf, type Operation, type OperationInput, outputOf, type RequestParts, takesIdempotencyKey } from './operation.js';

const NO_FIELDS = z.strictObject({});

/** The door a call came through: its problems are told in its own words (REST's path/query/body, MCP's arguments). */
export type Door = 'rest' | 'mcp';

type Part = 'params' | 'query' | 'body';

/** What each door calls each part of the input, and how it says a raw body is missing. */
const DOOR_WORDS: Record<Door, { part: Record<Part, string>; missingRaw: (field: string) => string }> = {
  rest: { part: { params: 'path', query: 'query', body: 'body' }, missingRaw: (field) => `send the ${field} as the request body` },
  mcp: { part: { params: 'arguments', query: 'arguments', body: 'arguments' }, missingRaw: (field) => `invalid arguments: ${field}: the argument is required` },
};

export interface Invocation {
  outcome: StoredOutcome;
  replayed: boolean;
}

/** For the exactly-once suite: called after a write's transaction commits and before anything answers (a crash there). */
export type AfterCommitHook = (op: Operation) => void;

function validatePart(schema: z.ZodType, value: unknown, part: Part, door: Door): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidFromIssues(parsed.error.issues, DOOR_WORDS[door].part[part]);
}

/** Path or query fields; an operation that takes none refuses any, and nothing sent to it is nothing to check. */
function validateFields(schema: z.ZodType | undefined, value: Record<string, unknown>, part: 'params' | 'query', door: Door): Record<string, unknown> {
  if (schema === undefined && isEmpty(value)) return {};
  return validatePart(schema ?? NO_FIELDS, value, part, door) as Record<string, unknown>;
}

function isEmpty(value: Record<string, unknown>): boolean {
  for (const _ in value) return false;
  return true;
}

/** A body-less operation takes nothing; an empty body (any content type) is nothing. */
function validateBody(op: Operation, body: unknown, door: Door): unknown {
  if (op.body) return validatePart(op.body, body, 'body', door);
  if (op.rawBody) {
    if (!Buffer.isBuffer(body) || body.length === 0) throw invalidInput(DOOR_WORDS[door].missingRaw(op.rawBody.field), undefined, op.rawBody.field);
    return body;
  }
  const empty = body === undefined || body === null || (Buffer.isBuffer(body) && body.length === 0) || body === '';
  if (!empty) throw invalidInput(`${op.method} ${op.path} takes no request body`);
  return undefined;
}

/** A refusal below 500 as an outcome (so it replays); anything else is thrown on. */
function refusalOf(err: unknown): StoredOutcome {
  if (err instanceof AppError && err.status < 500) {
    const { code, message, details, headers, param } = err;
    const extras = { ...(details === undefined ? {} : { details }), ...(headers === undefined ? {} : { headers }), ...(param === undefined ? {} : { param }) };
    return { status: err.status, error: { code, message, ...extras } };
  }
  throw err;
}

/**
 * What the idempotency record keeps of an outcome: the outcome itself, except a success holding a secret shown once,
 * whose replay answers 409 secret_shown_once naming what was created (the secret is stored nowhere but as a hash).
 */
function replayOf(op: Operation, outcome: StoredOutcome): StoredOutcome {
  if (op.shownOnce === undefined || !('output' in outcome)) return outcome;
  const { created, details, instead } = op.shownOnce(outcome.output);
  const message = `the first request with this Idempotency-Key created ${created}; its secret was shown once, in that answer, and is not kept: ${instead}`;
  return { status: ERROR_STATUS.secret_shown_once, error: { code: 'secret_shown_once', message, details } };
}

/** Where the hub events of a change stand after the try right after commit: the first not delivered, else the last. */
function deliveryOf(ids: readonly string[], states: Map<string, Parameters<typeof toPublicDelivery>[0]>): PublicDelivery {
  const all = ids.map((id) => toPublicDelivery(states.get(id)));
  return all.find((d) => d.status !== 'delivered') ?? all[all.length - 1] ?? toPublicDelivery(undefined);
}

export interface InvokerOptions {
  db: Db;
  idempotency: IdempotencyStore;
  delivery: DeliverAfterCommit;
  afterCommit?: AfterCommitHook;
}

/**
 * The one way an operation is called, whichever door it came through, and the owner of its unit of work: scope, input
 * checks and the idempotency key; for a write, the transaction, the outcome recorded in it, the commit and the delivery
 * right after. Refusals below 500 become outcomes (so they replay); a 5xx is thrown.
 */
export class OperationInvoker {
  constructor(private readonly options: InvokerOptions) {}

  async invoke(op: Operation, auth: AuthContext, raw: RequestParts, idempotencyKey: string | undefined, door: Door = 'rest'): Promise<Invocation> {
    // A key without the scope learns nothing about the input's shape: 403 comes before 400.
    if (typeof op.scope === 'string') requireScope(auth, op.scope);
    // Before any walk of the input (schemas, the fingerprint): the same 400 with an idempotency key as without.
    for (const part of ['params', 'query', 'body'] as const) if (!Buffer.isBuffer(raw[part])) assertDepth(raw[part], DOOR_WORDS[door].part[part]);
    assertNoNul(raw.params, 'path');
    assertNoNul(raw.query, 'query');
    if (!Buffer.isBuffer(raw.body)) assertNoNul(raw.body, 'body');
    const input: OperationInput = {
      params: validateFields(op.params, raw.params, 'params', door),
      query: validateFields(op.query, raw.query, 'query', door),
      body: validateBody(op, raw.body, door),
    };
    const present = (value: unknown): StoredOutcome => {
      const output = outputOf(op, value);
      return { status: op.statusOf ? op.statusOf(output) : op.status, output };
    };
    if (idempotencyKey === undefined || !takesIdempotencyKey(op)) return { outcome: await this.run(op, auth, input, present), replayed: false };
    const body = input.body;
    // A raw body (an EDI interchange, up to 10 MB) is hashed between yields; the digest is the same either way.
    const fingerprint = Buffer.isBuffer(body) ? await fingerprintOfRaw(op.name, { ...input, body }) : fingerprintOf(op.name, input);
    // The operator acts for no org: its keys are its own.
    const claim = { table: audienceOf(op) === 'operator' ? 'operator_idempotency_keys' : 'idempotency_keys', orgId: auth.orgId, key: idempotencyKey, fingerprint } as const;
    return this.options.idempotency.run(claim, (held) => this.run(op, auth, input, present, held), (outcome) => replayOf(op, outcome));
  }

  /** Runs the handler in its unit of work; `held` is the idempotency key the outcome is recorded under, if any. */
  private async run(op: Operation, auth: AuthContext, input: OperationInput, present: (value: unknown) => StoredOutcome, held?: IdempotencyClaim): Promise<StoredOutcome> {
    const { db, idempotency, delivery, afterCommit } = this.options;
    const orgId = auth.orgId;
    try {
      if (op.unit === 'read') return present(await op.handle({ auth, orgId, db }, input));
      if (op.unit === 'steps') {
        let settled = false;
        const answer = await op.handle(
          {
            auth,
            orgId,
            db,
            settle: async (tx, value) => {
              if (held !== undefined) await idempotency.record(tx, held, replayOf(op, present(value)));
              settled = true;
            },
          },
          input,
        );
        // Only a keyed call has an outcome to settle: the other doors take no idempotency key.
        if (!settled && held !== undefined) throw new Error(`operation ${op.name} answered without settling its outcome`);
        afterCommit?.(op);
        return present(answer);
      }
      const unit: AfterCommit = { leaseFor: (destination) => delivery.leaseForNow(destination), leased: [] };
      const answer = await db.transaction().execute(async (tx) => {
        bindTransaction(tx);
        sendAfterCommit(tx, unit);
        const value = await op.handle({ auth, orgId, tx }, input);
        // The answer as it stands at commit (its hub events queued): what a retry after a crash replays.
        if (held !== undefined) await idempotency.record(tx, held, replayOf(op, present(value)));
        return value;
      });
      afterCommit?.(op);
      if (unit.leased.length === 0 || op.afterDelivery === undefined) {
        if (unit.leased.length > 0) await delivery.deliverNow(unit.leased);
        return present(answer);
      }
      const states = await delivery.deliverNow(unit.leased);
      return present(op.afterDelivery(answer, deliveryOf(unit.leased, states)));
    } catch (err) {
      const refusal = refusalOf(err);
      // A refusal of a write may have committed what it settles (an EDI message refused and kept): a crash can come next.
      if (op.unit !== 'read') afterCommit?.(op);
      return refusal;
    }
  }
}

/** A stored refusal as the AppError the doors answer with. */
export function refusalError({ error }: Extract<StoredOutcome, { error: unknown }>): AppError {
  return new AppError(error.code, error.message, error.details, error.headers, error.param);
}

/** An error outcome as the AppError the doors answer with. */
export function outcomeError(outcome: StoredOutcome): AppError | undefined {
  return 'error' in outcome ? refusalError(outcome) : undefined;
}
