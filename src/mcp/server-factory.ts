import { type Implementation, McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { callerOf } from './caller.js';
import { type OperationTool, visibleTo } from './operation-tools.js';

const INSTRUCTIONS =
  'Tools of the tire and equipment gateway. Each tool is one operation of the REST API under /v1 (same name as its ' +
  "operationId) and acts on your organisation's data only; tools/list shows the tools your key's scopes allow. " +
  'A failed call has isError and structuredContent { code, status, message, details }. Tools that change something take ' +
  'an optional idempotency_key: reuse it when you retry after a timeout, so the change happens once.';

/** Arguments reach our own checks as sent: the operation's schemas judge them, with REST's messages. */
const ANY_ARGUMENTS = z.looseObject({});

/**
 * One McpServer per /mcp request (the SDK's stateless model: an instance serves one exchange), with every tool
 * registered so that calling a hidden tool still reaches the operation and fails with its `missing scope` message.
 */
export function createServerFactory(tools: OperationTool[], info: Implementation): McpServerFactory {
  return ({ authInfo }) => {
    const caller = callerOf(authInfo);
    const server = new McpServer(info, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    for (const tool of tools) {
      server.registerTool(
        tool.listing.name,
        { title: tool.listing.title ?? tool.listing.name, description: tool.listing.description ?? '', inputSchema: ANY_ARGUMENTS },
        (args) => tool.call(caller, args),
      );
    }
    const visible = tools.filter((t) => visibleTo(caller.auth, t.operation)).map((t) => t.listing);
    // Replaces McpServer's own listing, which would show every registered tool, with the schemas the operations define.
    server.server.setRequestHandler('tools/list', () => ({ tools: visible }));
    return server;
  };
}
