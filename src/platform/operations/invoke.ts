import { z } from 'zod';
import type { AuthContext } from '../auth/scopes.js';
import { requireScope } from '../auth/scopes.js';
import { AppError, invalidInput } from '../http/errors.js';
import { assertNoNul } from '../http/nul-guard.js';
import { fingerprintOf, type IdempotencyStore, type StoredOutcome } from './idempotency.js';
import { type Operation, outputOf, type RequestParts, takesIdempotencyKey } from './operation.js';

const NO_FIELDS = z.strictObject({});

/** Where each part's problems are reported: the names REST clients know. */
const PART_LABEL = { params: 'path', query: 'query', body: 'body' } as const;

export interface Invocation {
  outcome: StoredOutcome;
  replayed: boolean;
}

/** The 400 for a schema's issues: `invalid <what>: <path>: <message>; ...`, each as `{ path, message }` in details. */
export function invalidFromIssues(issues: readonly z.core.$ZodIssue[], what: string, pathPrefix: readonly string[] = []): AppError {
  const details = issues.map((issue) => ({ path: [...pathPrefix, ...issue.path.map(String)].join('.'), message: issue.message }));
  return invalidInput(`invalid ${what}: ${details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ')}`, details);
}

function validatePart(schema: z.ZodType, value: unknown, part: keyof typeof PART_LABEL): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidFromIssues(parsed.error.issues, PART_LABEL[part]);
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

/**
 * The one way an operation is called, whichever door it came through: scope, input checks, the idempotency key,
 * then the handler. Errors below 500 become outcomes (so they replay); a 5xx is thrown.
 */
export class OperationInvoker {
  constructor(private readonly idempotency: IdempotencyStore) {}

  async invoke(op: Operation, auth: AuthContext, raw: RequestParts, idempotencyKey: string | undefined): Promise<Invocation> {
    // A key without the scope learns nothing about the input's shape: 403 comes before 400.
    if (typeof op.scope === 'string') requireScope(auth, op.scope);
    assertNoNul(raw.params, 'path');
    assertNoNul(raw.query, 'query');
    if (!Buffer.isBuffer(raw.body)) assertNoNul(raw.body, 'body');
    const input = {
      params: validatePart(op.params ?? NO_FIELDS, raw.params, 'params'),
      query: validatePart(op.query ?? NO_FIELDS, raw.query, 'query'),
      body: validateBody(op, raw.body),
    };
    const present = (value: unknown): StoredOutcome => {
      const output = outputOf(op, value);
      return { status: op.statusOf ? op.statusOf(output) : op.status, output };
    };
    const call = async (): Promise<StoredOutcome> => {
      try {
        return present(await op.handle(auth, input as Parameters<Operation['handle']>[1]));
      } catch (err) {
        if (err instanceof AppError && err.status < 500) {
          const { code, message, details, headers } = err;
          return { status: err.status, error: { code, message, ...(details === undefined ? {} : { details }), ...(headers === undefined ? {} : { headers }) } };
        }
        throw err;
      }
    };
    if (idempotencyKey === undefined || !takesIdempotencyKey(op)) return { outcome: await call(), replayed: false };
    const fingerprint = fingerprintOf(op.name, input);
    return this.idempotency.run({ orgId: auth.orgId, key: idempotencyKey, fingerprint, present }, call);
  }
}

/** An error outcome as the AppError the doors answer with. */
export function outcomeError(outcome: StoredOutcome): AppError | undefined {
  return 'error' in outcome ? new AppError(outcome.error.code, outcome.error.message, outcome.error.details, outcome.error.headers) : undefined;
}
