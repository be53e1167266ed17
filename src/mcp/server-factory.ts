import { type Implementation, McpServer, type McpServerFactory, type StandardSchemaWithJSON, type Tool } from '@modelcontextprotocol/server';
import { hasScope, type AuthContext } from '../platform/auth/scopes.js';
import { callerOf } from './caller.js';
import type { z } from 'zod';
import type { ToolDefinition } from './tool.js';
import { runTool } from './tool-result.js';
import { cachedJsonSchema } from './tool-schema.js';

/** The JSON Schema dialect the SDK converts tool schemas to; the listing below must match what it validates against. */
const JSON_SCHEMA_TARGET = 'draft-2020-12';

const INSTRUCTIONS =
  'Tools of the tire and equipment gateway. Each tool mirrors one REST operation under /v1 and acts on your ' +
  "organisation's data only; tools/list shows the tools your key's scopes allow.";

type ToolInput = ToolDefinition['input'];

interface PreparedTool {
  definition: ToolDefinition;
  input: StandardSchemaWithJSON<z.input<ToolInput>, z.output<ToolInput>>;
  output: StandardSchemaWithJSON;
  listing: Tool;
}

/** A ZodObject always describes an object, but a root with a registry id converts to a bare `$ref`: say so, as the SDK does. */
function objectSchema(json: Record<string, unknown>, what: string): Tool['inputSchema'] {
  if (json.type !== undefined && json.type !== 'object') throw new Error(`${what} must describe an object`);
  return { type: 'object', ...json };
}

/** Converts a definition's schemas and builds its tools/list entry once, at start-up. */
function prepare(definition: ToolDefinition): PreparedTool {
  const input = cachedJsonSchema(definition.input);
  const output = cachedJsonSchema(definition.output);
  const target = { target: JSON_SCHEMA_TARGET } as const;
  return {
    definition,
    input,
    output,
    listing: {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: objectSchema(input['~standard'].jsonSchema.input(target), `${definition.name} input`),
      outputSchema: objectSchema(output['~standard'].jsonSchema.output(target), `${definition.name} output`),
      annotations: { title: definition.title, ...definition.annotations },
    },
  };
}

function visibleTo(auth: AuthContext, tool: ToolDefinition): boolean {
  return typeof tool.scope === 'string' ? hasScope(auth, tool.scope) : tool.scope(auth);
}

/**
 * One McpServer per /mcp request (the SDK's stateless model: an instance serves one exchange), with every tool
 * registered so that calling a hidden tool still reaches the service and fails with its `missing scope` message.
 */
export function createServerFactory(tools: ToolDefinition[], info: Implementation): McpServerFactory {
  const prepared = tools.map(prepare);
  return ({ authInfo }) => {
    const caller = callerOf(authInfo);
    const server = new McpServer(info, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    for (const tool of prepared) {
      const { definition } = tool;
      server.registerTool(
        definition.name,
        {
          title: definition.title,
          description: definition.description,
          inputSchema: tool.input,
          outputSchema: tool.output,
          annotations: tool.listing.annotations,
        },
        (input) => runTool(definition, caller, input),
      );
    }
    const visible = prepared.filter((t) => visibleTo(caller.auth, t.definition)).map((t) => t.listing);
    // Replaces McpServer's own listing, which would show every registered tool to every key.
    server.server.setRequestHandler('tools/list', () => ({ tools: visible }));
    return server;
  };
}
