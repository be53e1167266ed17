import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, onRequestHookHandler } from 'fastify';
import { requireScope } from '../auth/scopes.js';
import { authOf } from '../http/api-auth.js';
import { parseJsonBody } from '../http/json-body.js';
import { readSharedBody } from '../http/shared-body.js';
import { checkKeyFormat } from './idempotency.js';
import { type OperationInvoker, outcomeError } from './invoke.js';
import { type Operation, takesIdempotencyKey } from './operation.js';
import { typedQuery } from './query-string.js';

type BodyKind = 'json' | 'raw' | 'none';

function bodyKind(op: Operation): BodyKind {
  if (op.rawBody) return 'raw';
  return op.body ? 'json' : 'none';
}

/**
 * A key without an upload's static scope is refused before its body is read (the invoker checks again, for MCP), so the
 * 403 closes the connection instead of waiting out a body nobody will read. Rule scopes (objects:<key>:write) need the
 * object's definition: the operation's `beforeBody` reads it, on path parameters that pass their schema (the others
 * get their 400 from the invoker).
 */
function scopeBeforeBody(op: Operation): (onRequestHookHandler | onRequestAsyncHookHandler)[] {
  const scope = op.scope;
  if (bodyKind(op) === 'none') return [];
  const check = op.beforeBody;
  if (typeof scope !== 'string') {
    if (check === undefined) return [];
    const hook: onRequestAsyncHookHandler = async (request) => {
      const params = (op.params ?? NO_PARAMS).safeParse(request.params);
      if (params.success) await check(authOf(request), params.data);
    };
    return [hook];
  }
  return [
    (request, _reply, done) => {
      try {
        requireScope(authOf(request), scope);
      } catch (err) {
        done(err as Error);
        return;
      }
      done();
    },
  ];
}

const NO_PARAMS = z.strictObject({});

function handlerFor(op: Operation, invoker: OperationInvoker) {
  const keyed = takesIdempotencyKey(op);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = keyed ? request.headers['idempotency-key'] : undefined;
    const key = header === undefined ? undefined : checkKeyFormat(header);
    const parts = { params: request.params as Record<string, unknown>, query: typedQuery(op.query, request.query as Record<string, unknown>), body: request.body };
    const { outcome, replayed } = await invoker.invoke(op, authOf(request), parts, key);
    if (replayed) void reply.header('idempotent-replayed', 'true');
    const error = outcomeError(outcome);
    if (error) throw error;
    return reply.status(outcome.status).send({ ok: true, ...('output' in outcome ? outcome.output : {}) });
  };
}

/** Content-type rules per kind of body: JSON (UTF-8 only), raw bytes of the listed types, or none (any type, empty). */
function useBodyParsers(scope: FastifyInstance, kind: BodyKind, ops: Operation[]): void {
  scope.removeAllContentTypeParsers();
  if (kind === 'json') {
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      try {
        done(null, parseJsonBody(body as string, request.headers['content-type']));
      } catch (err) {
        done(err as Error, undefined);
      }
    });
  } else if (kind === 'raw') {
    const types = [...new Set(ops.flatMap((op) => op.rawBody?.mediaTypes ?? []))];
    // Into shared memory as it arrives: a large body goes to its worker thread without being copied again.
    scope.addContentTypeParser(types, (request: FastifyRequest, payload: NodeJS.ReadableStream) => readSharedBody(request, payload, request.routeOptions.bodyLimit));
  } else {
    // Whatever the type, the bytes are kept so a non-empty body can be refused by name rather than by parse error.
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  }
}

export type RouteHooks = (op: Operation) => (onRequestHookHandler | onRequestAsyncHookHandler)[];

/**
 * Registers each operation as a Fastify route on `app`, behind the caller's authentication: hooks on `app` (a door's
 * scope), or per route from `hooks` (a public route's guard, which its OPTIONS preflight must not pass through).
 */
export async function registerRestOperations(app: FastifyInstance, operations: Operation[], invoker: OperationInvoker, hooks?: RouteHooks): Promise<void> {
  const kinds: BodyKind[] = ['json', 'raw', 'none'];
  for (const kind of kinds) {
    const ops = operations.filter((op) => !op.absent?.rest && bodyKind(op) === kind);
    if (ops.length === 0) continue;
    await app.register((scope, _opts, done) => {
      useBodyParsers(scope, kind, ops);
      for (const op of ops) {
        scope.route({
          method: op.method,
          url: op.path,
          ...(op.rawBody ? { bodyLimit: op.rawBody.maxBytes } : op.maxBodyBytes ? { bodyLimit: op.maxBodyBytes } : {}),
          onRequest: [...(hooks?.(op) ?? []), ...scopeBeforeBody(op)],
          handler: handlerFor(op, invoker),
        });
      }
      done();
    });
  }
}
