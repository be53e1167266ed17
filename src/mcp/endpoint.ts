import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpServerFactory,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

interface McpExchange {
  authInfo: AuthInfo;
  /** The JSON body when it parsed; otherwise the SDK reads the raw body and answers the parse error itself. */
  parsedBody?: unknown;
}

/** Serves one /mcp POST in whichever protocol era the client speaks. */
interface McpEndpoint {
  handle(request: Request, exchange: McpExchange): Promise<Response>;
  close(): Promise<void>;
}

/** 2025-era traffic: a fresh server on a stateless transport that answers with one JSON body, not an SSE stream. */
async function serveLegacy(factory: McpServerFactory, request: Request, exchange: McpExchange): Promise<Response> {
  const server = await factory({ era: 'legacy', authInfo: exchange.authInfo, requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, exchange);
  } finally {
    await server.close();
  }
}

/**
 * 2026-07-28 requests go to the SDK's per-request handler; 2025-11-25 and older go to the stateless JSON leg above
 * (the SDK's own legacy fallback would answer with SSE, hence the hand-wired split it documents).
 */
export function createMcpEndpoint(factory: McpServerFactory, onerror: (err: Error) => void): McpEndpoint {
  // 'auto' answers with one JSON body unless a tool emits progress first (none does); 'json' would drop that progress.
  const modern = createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', onerror });
  return {
    async handle(request, exchange) {
      const legacy = await isLegacyRequest(request, exchange.parsedBody);
      return legacy ? serveLegacy(factory, request, exchange) : modern.fetch(request, exchange);
    },
    close: () => modern.close(),
  };
}
