import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Harness } from '../../support/harness.js';

/** What the tests read from a tools/call result, the same for both SDK lines. */
export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface McpTestClient {
  /** The revision the client ended up speaking. */
  protocolVersion: string | undefined;
  listTools(): Promise<ListedTool[]>;
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface ClientKind {
  label: string;
  protocolVersion: string;
  /** `fetch` lets a test watch the raw HTTP exchanges. */
  connect(url: string, key: string, fetch?: typeof globalThis.fetch): Promise<McpTestClient>;
}

const info = { name: 'gateway-tests', version: '1.0.0' };
const transportOptions = (key: string, fetch?: typeof globalThis.fetch) => ({
  requestInit: { headers: { authorization: `Bearer ${key}` } },
  ...(fetch ? { fetch } : {}),
});

/** v2 client (`@modelcontextprotocol/client`), either pinned to 2026-07-28 or in its 2025 legacy mode. */
function v2(mode: 'legacy' | { pin: string }) {
  return async (url: string, key: string, fetch?: typeof globalThis.fetch): Promise<McpTestClient> => {
    const client = new Client(info, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), transportOptions(key, fetch)));
    return {
      protocolVersion: client.getNegotiatedProtocolVersion(),
      listTools: async () => (await client.listTools()).tools,
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
      close: () => client.close(),
    };
  };
}

/** v1 client (`@modelcontextprotocol/sdk`), which speaks 2025-11-25. */
async function v1(url: string, key: string, fetch?: typeof globalThis.fetch): Promise<McpTestClient> {
  const client = new V1Client(info);
  const transport = new V1Transport(new URL(url), transportOptions(key, fetch));
  await client.connect(transport);
  return {
    protocolVersion: transport.protocolVersion,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

export const clientKinds: ClientKind[] = [
  { label: 'client v2 pinned to 2026-07-28', protocolVersion: '2026-07-28', connect: v2({ pin: '2026-07-28' }) },
  { label: 'sdk v1 client', protocolVersion: '2025-11-25', connect: v1 },
  { label: 'client v2 in legacy mode', protocolVersion: '2025-11-25', connect: v2('legacy') },
];

/** Serves the harness app on a loopback port; the harness closes it. */
export async function listen(h: Harness): Promise<string> {
  const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
  return `${address}/mcp`;
}

/** A raw JSON-RPC POST, for what the SDK clients hide (status codes, envelopes, headers). */
export async function postRpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const initializeRequest = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: info },
};
