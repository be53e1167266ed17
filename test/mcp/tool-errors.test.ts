import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpRoutes } from '../../src/mcp/mcp.routes.js';
import { defineTool, READ_ONLY } from '../../src/mcp/tool.js';
import { AppError } from '../../src/platform/http/errors.js';
import { clientKinds, type McpTestClient } from './support/mcp-clients.js';

const failing = (name: string, error: () => Error) =>
  defineTool({
    name,
    title: name,
    description: `Always fails (${name}).`,
    scope: 'products:read',
    rest: null,
    input: z.object({}),
    output: z.object({ ok: z.boolean() }),
    annotations: READ_ONLY,
    handler: () => Promise.reject(error()),
  });

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
        authenticate: (request) => {
          request.auth = { orgId: 'org_1', keyId: 'key_1', scopes: new Set(['products:read']), source: 'mcp' };
          return Promise.resolve();
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
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'internal error' }] });
      expect(JSON.stringify(result)).not.toContain('hunter2');
      const logged = logs.map((l) => JSON.parse(l) as { level: number; msg: string; tool?: string; err?: { message: string } });
      expect(logged).toContainEqual(expect.objectContaining({ level: 50, msg: 'mcp tool failed', tool: 'boom_internal' }));
      expect(logged.find((l) => l.tool === 'boom_internal')?.err?.message).toContain('db-primary');
    });

    it('passes an upstream failure through with its own message, as REST does', async () => {
      const result = await client.call('boom_upstream', {});
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'hub answered 503' }] });
    });
  });
});
