import { z } from 'zod';
import type { AuthContext } from '../auth/scopes.js';
import { requireScope } from '../auth/scopes.js';
import type { Db } from '../db/schema.js';
import { AppError, invalidInput } from '../core/errors.js';
import { invalidFromIssues } from '../core/issues.js';
import { assertNoNul } from '../core/nul-guard.js';
import { type PublicDelivery, toPublicDelivery } from '../outbox/deliveries.service.js';
import type { DeliverAfterCommit } from '../outbox/delivery-worker.js';
import { type AfterCommit, sendAfterCommit } from '../outbox/outbox.js';
import { fingerprintOf, fingerprintOfRaw, type IdempotencyClaim, type IdempotencyStore, type StoredOutcome } from './idempotency.js';
import { type Operation, type OperationInput, outputOf, type RequestParts, takesIdempotencyKey } from './operation.js';

const NO_FIELDS = z.strictObject({});

/** Where each part's problems are reported: the names REST clients know. */
const PART_LABEL = { params: 'path', query: 'query', body: 'body' } as const;

export interface Invocation {
  outcome: StoredOutcome;
  replayed: boolean;
}

/** For the exactly-once suite: called after a write's transaction commits and before anything answers (a crash there). */
export type AfterCommitHook = (op: Operation) => void;

function validatePart(schema: z.ZodType, value: unknown, part: keyof typeof PART_LABEL): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidFromIssues(parsed.error.issues, PART_LABEL[part]);
}

/** Path or query fields; an operation that takes none refuses any, and nothing sent to it is nothing to check. */
function validateFields(schema: z.ZodType | undefined, value: Record<string, unknown>, part: 'params' | 'query'): Record<string, unknown> {
  if (schema === undefined && isEmpty(value)) return {};
  return validatePart(schema ?? NO_FIELDS, value, part) as Record<string, unknown>;
}

function isEmpty(value: Record<string, unknown>): boolean {
  for (const _ in value) return false;
  return true;
}

/** A body-less operation takes nothing; an empty body (any content type) is nothing. */
function validateBody(op: Operation, body: unknown): unknown {
  if (op.body) return validatePart(op.body, body, 'body');
  if (op.rawBody) {
    if (!Buffer.isBuffer(body) || body.length === 0) throw invalidInput(`send the ${op.rawBody.field} as the request body`);
    return body;
  }
  const empty = body === undefined || body === null || (Buffer.isBuffer(body) && body.length === 0) || body === '';
  if (!empty) throw invalidInput(`${op.method} ${op.path} takes no request body`);
  return undefined;
}

/** A refusal below 500 as an outcome (so it replays); anything else is thrown on. */
function refusalOf(err: unknown): StoredOutcome {
  if (err instanceof AppError && err.status < 500) {
    const { code, message, details, headers } = err;
    return { status: err.status, error: { code, message, ...(details === undefined ? {} : { details }), ...(headers === undefined ? {} : { headers }) } };
  }
  throw err;
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

  async invoke(op: Operation, auth: AuthContext, raw: RequestParts, idempotencyKey: string | undefined): Promise<Invocation> {
    // A key without the scope learns nothing about the input's shape: 403 comes before 400.
    if (typeof op.scope === 'string') requireScope(auth, op.scope);
    assertNoNul(raw.params, 'path');
    assertNoNul(raw.query, 'query');
    if (!Buffer.isBuffer(raw.body)) assertNoNul(raw.body, 'body');
    const input: OperationInput = {
      params: validateFields(op.params, raw.params, 'params'),
      query: validateFields(op.query, raw.query, 'query'),
      body: validateBody(op, raw.body),
    };
    const present = (value: unknown): StoredOutcome => {
      const output = outputOf(op, value);
      return { status: op.statusOf ? op.statusOf(output) : op.status, output };
    };
    if (idempotencyKey === undefined || !takesIdempotencyKey(op)) return { outcome: await this.run(op, auth, input, present), replayed: false };
    const body = input.body;
    // A raw body (an EDI interchange, up to 10 MB) is hashed between yields; the digest is the same either way.
    const fingerprint = Buffer.isBuffer(body) ? await fingerprintOfRaw(op.name, { ...input, body }) : fingerprintOf(op.name, input);
    const claim = { orgId: auth.orgId, key: idempotencyKey, fingerprint };
    return this.options.idempotency.run(claim, (held) => this.run(op, auth, input, present, held));
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
              if (held !== undefined) await idempotency.record(tx, held, present(value));
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
        sendAfterCommit(tx, unit);
        const value = await op.handle({ auth, orgId, tx }, input);
        // The answer as it stands at commit (its hub events queued): what a retry after a crash replays.
        if (held !== undefined) await idempotency.record(tx, held, present(value));
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

/** An error outcome as the AppError the doors answer with. */
export function outcomeError(outcome: StoredOutcome): AppError | undefined {
  return 'error' in outcome ? new AppError(outcome.error.code, outcome.error.message, outcome.error.details, outcome.error.headers) : undefined;
}
