import type { Implementation } from '@modelcontextprotocol/server';
import type { FastifyPluginCallback } from 'fastify';
import type { apiKeyAuth } from '../platform/http/api-auth.js';
import { authOf } from '../platform/http/api-auth.js';
import { allowedOrigin, type CorsOptions, corsPreflight } from '../platform/http/origin.js';
import { authInfoFor } from './caller.js';
import { createMcpEndpoint } from './endpoint.js';
import { createServerFactory } from './server-factory.js';
import type { OperationTool } from './operation-tools.js';
import { parseJsonBody, toWebRequest } from './web-request.js';
import { refuseDuplicateKeys, refusePollutingKeys } from '../platform/http/json-body.js';

interface McpRoutesOptions {
  tools: OperationTool[];
  /** The same key check and rate limit as REST, built with source 'mcp'. */
  authenticate: ReturnType<typeof apiKeyAuth>;
  allowedOrigins: readonly string[];
  serverInfo: Implementation;
}

/** What a page on an allowlisted origin may send to /mcp and read back (errors, rate limits and the 401 challenge too). */
const MCP_CORS: CorsOptions = {
  methods: ['POST'],
  allowHeaders: ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id', 'idempotency-key', 'x-request-id'],
  exposeHeaders: [
    'mcp-session-id',
    'mcp-protocol-version',
    'x-request-id',
    'ratelimit-policy',
    'ratelimit',
    'retry-after',
    'www-authenticate',
  ],
  maxAgeSeconds: 600,
};

/**
 * POST /mcp (Streamable HTTP, stateless), and OPTIONS /mcp for browsers' preflights (no key: browsers send none).
 * GET and DELETE fall to the app's 405: there are no sessions or streams.
 */
export function mcpRoutes(opts: McpRoutesOptions): FastifyPluginCallback {
  return (app, _options, done) => {
    const endpoint = createMcpEndpoint(createServerFactory(opts.tools, opts.serverInfo), (err) =>
      app.log.warn({ err }, 'mcp request rejected'),
    );
    app.addHook('onClose', () => endpoint.close());

    // The SDK owns the protocol's body handling (JSON-RPC parse errors, 415), so Fastify hands it the raw text.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, parsed) => parsed(null, body));

    app.options('/mcp', { schema: { hide: true } }, corsPreflight(opts.allowedOrigins, MCP_CORS));
    app.post('/mcp', { schema: { hide: true }, onRequest: [allowedOrigin(opts.allowedOrigins, MCP_CORS), opts.authenticate] }, async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : undefined;
      const parsedBody = parseJsonBody(body);
      // The SDK's own parsing drops a `__proto__` key and keeps a repeated key's last value without a word; REST refuses
      // both, so this door does too.
      refusePollutingKeys(parsedBody, 'body');
      if (parsedBody !== undefined && body !== undefined) refuseDuplicateKeys(body, 'body');
      const response = await endpoint.handle(toWebRequest(request, reply, body), {
        authInfo: authInfoFor({ auth: authOf(request), log: request.log }),
        ...(parsedBody === undefined ? {} : { parsedBody }),
      });
      return reply.send(response);
    });
    done();
  };
}
