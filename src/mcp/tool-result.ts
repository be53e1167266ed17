import type { CallToolResult } from '@modelcontextprotocol/server';
import { toAppError } from '../platform/http/error-handler.js';
import { assertNoNul } from '../platform/http/nul-guard.js';
import type { McpCaller } from './caller.js';
import type { ToolDefinition } from './tool.js';

/**
 * Runs a tool handler for a caller. Success carries structuredContent plus a text copy for clients that only read text;
 * a failure is a tool result with isError and the message REST gives, and an unexpected error says only "internal error".
 */
export async function runTool(tool: ToolDefinition, caller: McpCaller, input: Parameters<ToolDefinition['handler']>[1]): Promise<CallToolResult> {
  try {
    assertNoNul(input, 'arguments');
    const output = await tool.handler(caller.auth, input);
    return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
  } catch (err) {
    const appErr = toAppError(err);
    if (appErr.status >= 500) caller.log.error({ err, tool: tool.name }, 'mcp tool failed');
    else caller.log.info({ code: appErr.code, tool: tool.name }, appErr.message);
    return { content: [{ type: 'text', text: appErr.message }], isError: true };
  }
}
