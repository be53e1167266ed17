import type { Implementation } from '@modelcontextprotocol/server';
import type { FastifyPluginCallback } from 'fastify';
import type { apiKeyAuth } from '../platform/http/api-auth.js';
import { authOf } from '../platform/http/api-auth.js';
import { allowedOrigin } from '../platform/http/origin.js';
import { authInfoFor } from './caller.js';
import { createMcpEndpoint } from './endpoint.js';
import { createServerFactory } from './server-factory.js';
import type { ToolDefinition } from './tool.js';
import { parseJsonBody, toWebRequest } from './web-request.js';

export interface McpRoutesOptions {
  tools: ToolDefinition[];
  /** The same key check and rate limit as REST, built with source 'mcp'. */
  authenticate: ReturnType<typeof apiKeyAuth>;
  allowedOrigins: readonly string[];
  serverInfo: Implementation;
}

/** POST /mcp (Streamable HTTP, stateless). GET and DELETE fall to the app's 405: there are no sessions or streams. */
export function mcpRoutes(opts: McpRoutesOptions): FastifyPluginCallback {
  return (app, _options, done) => {
    const endpoint = createMcpEndpoint(createServerFactory(opts.tools, opts.serverInfo), (err) =>
      app.log.warn({ err }, 'mcp request rejected'),
    );
    app.addHook('onClose', () => endpoint.close());

    // The SDK owns the protocol's body handling (JSON-RPC parse errors, 415), so Fastify hands it the raw text.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, parsed) => parsed(null, body));

    app.addHook('onRequest', allowedOrigin(opts.allowedOrigins));
    app.addHook('onRequest', opts.authenticate);

    app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : undefined;
      const parsedBody = parseJsonBody(body);
      const response = await endpoint.handle(toWebRequest(request, reply, body), {
        authInfo: authInfoFor({ auth: authOf(request), log: request.log }),
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
      return reply.send(response);
    });
    done();
  };
}
