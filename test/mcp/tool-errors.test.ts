import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpRoutes } from '../../src/mcp/mcp.routes.js';
import { toolOf } from '../../src/mcp/operation-tools.js';
import { systemClock } from '../../src/platform/core/clock.js';
import type { Db } from '../../src/platform/db/schema.js';
import { AppError } from '../../src/platform/core/errors.js';
import { InstanceLiveness } from '../../src/platform/instances/instance-liveness.js';
import { IdempotencyStore } from '../../src/platform/operations/idempotency.js';
import { OperationInvoker } from '../../src/platform/operations/invoke.js';
import { defineRead } from '../../src/platform/operations/operation.js';
import type { DeliverAfterCommit } from '../../src/platform/outbox/delivery-worker.js';
import { clientKinds, type McpTestClient } from './support/mcp-clients.js';

// Reads open no transaction and never reach the idempotency store or the outbox, so they need no database here.
const none = {} as unknown as Db;
const invoker = new OperationInvoker({ db: none, idempotency: new IdempotencyStore(none, systemClock, new InstanceLiveness(none, 'sqlite', { ttlMs: 10_000 })), delivery: {} as unknown as DeliverAfterCommit });

const failing = (name: string, error: () => Error) =>
  toolOf(
    defineRead({
      name,
      method: 'GET',
      path: `/v1/${name}`,
      scope: 'products:read',
      summary: name,
      description: `Always fails (${name}).`,
      output: z.object({ done: z.boolean() }),
      status: 200,
      returns: 'nothing, ever.',
      errors: {},
      example: { response: { done: true } },
      handle: () => Promise.reject(error()),
    }),
    invoker,
  );

describe('tool failures', () => {
  const logs: string[] = [];
  let app: FastifyInstance;
  let url: string;
  beforeAll(async () => {
    app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void logs.push(line) } } });
    await app.register(
      mcpRoutes({
        tools: [
          failing('boom_internal', () => new Error('connection to db-primary:5432 refused, password=hunter2')),
          failing('boom_upstream', () => new AppError('upstream_failure', 'hub answered 503')),
        ],
        // Stands in for apiKeyAuth: this suite is about what happens after a caller is known.
        authenticate: (request, _reply, done) => {
          request.auth = { orgId: 'org_1', keyId: 'key_1', scopes: new Set(['products:read']), source: 'mcp' };
          done();
        },
        allowedOrigins: [],
        serverInfo: { name: 'test', version: '1.0.0' },
      }),
    );
    url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/mcp`;
  });
  afterAll(() => app.close());

  describe.each(clientKinds)('$label', (kind) => {
    let client: McpTestClient;
    beforeAll(async () => {
      client = await kind.connect(url, 'stub');
    });
    afterAll(() => client.close());

    it('answers an unexpected error with a generic tool error and logs the real one', async () => {
      logs.length = 0;
      const result = await client.call('boom_internal', {});
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'internal: internal error' }] });
      expect(result.structuredContent).toEqual({ code: 'internal', status: 500, message: 'internal error', doc_url: 'docs/errors.md#internal' });
      expect(JSON.stringify(result)).not.toContain('hunter2');
      const logged = logs.map((l) => JSON.parse(l) as { level: number; msg: string; tool?: string; err?: { message: string } });
      expect(logged).toContainEqual(expect.objectContaining({ level: 50, msg: 'mcp tool failed', tool: 'boom_internal' }));
      expect(logged.find((l) => l.tool === 'boom_internal')?.err?.message).toContain('db-primary');
    });

    it('passes an upstream failure through with its own message, as REST does', async () => {
      const result = await client.call('boom_upstream', {});
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'upstream_failure: hub answered 503' }] });
    });
  });
});
