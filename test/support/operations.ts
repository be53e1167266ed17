import type { InjectOptions } from 'fastify';
import type { Operation } from '../../src/platform/operations/operation.js';
import { typedQuery } from '../../src/platform/operations/query-string.js';
import type { Harness } from './harness.js';

/** One call of an operation: the parts a REST client sends. MCP arguments are derived unless the operation has its own MCP shape. */
export interface Call {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** Arguments for an operation with its own MCP shape (op.mcp). */
  mcpArgs?: Record<string, unknown>;
  /** The scope the call needs when the operation's is a rule (objects:<key>:read). */
  scope?: string;
}

export interface Answer {
  status: number;
  /** REST: the body without `ok`; MCP: structuredContent. */
  payload: Record<string, unknown>;
  headers: Record<string, unknown>;
}

const encode = (value: string) => encodeURIComponent(value);

export function restUrl(op: Operation, call: Call): string {
  const path = op.path.replace(/:([a-z_]+)/g, (_m, name: string) => encode(call.params?.[name] ?? `missing-${name}`));
  const query = new URLSearchParams(call.query ?? {}).toString();
  return query ? `${path}?${query}` : path;
}

export function restRequest(op: Operation, call: Call, headers: Record<string, string> = {}): InjectOptions {
  const base: InjectOptions = { method: op.method, url: restUrl(op, call), headers: { ...headers } };
  if (call.body === undefined) return base;
  if (op.rawBody) return { ...base, payload: call.body as string, headers: { 'content-type': op.rawBody.mediaTypes[0] ?? 'text/plain', ...headers } };
  return { ...base, payload: call.body as InjectOptions['payload'], headers: { 'content-type': 'application/json', ...headers } };
}

export async function callRest(h: Harness, op: Operation, call: Call, key: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await h.request({ ...restRequest(op, call, headers), ...(key ? { key } : {}) });
  const { ok: _ok, ...payload } = JSON.parse(res.body) as Record<string, unknown>;
  return { status: res.statusCode, payload, headers: res.headers };
}

/** The tool arguments for a REST call: path, query and body fields merged (query values typed as the REST door reads them). */
export function mcpArgsOf(op: Operation, call: Call): Record<string, unknown> {
  if (op.mcp) {
    if (!call.mcpArgs) throw new Error(`${op.name}: its MCP shape needs mcpArgs in the fixture`);
    return call.mcpArgs;
  }
  const body = op.rawBody ? (call.body === undefined ? {} : { [op.rawBody.field]: call.body }) : ((call.body ?? {}) as Record<string, unknown>);
  return { ...call.params, ...typedQuery(op.query, call.query ?? {}), ...body };
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

/** tools/call over POST /mcp; the answer as REST would give it: the HTTP status of the code, or 200 and the output. */
export async function callMcp(h: Harness, name: string, args: Record<string, unknown>, key: string | undefined): Promise<Answer & { isError: boolean; text: string }> {
  const res = await h.request({
    method: 'POST',
    url: '/mcp',
    headers: MCP_HEADERS,
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    ...(key ? { key } : {}),
  });
  if (res.statusCode !== 200) {
    const { ok: _ok, ...payload } = JSON.parse(res.body) as Record<string, unknown>;
    return { status: res.statusCode, payload, headers: res.headers, isError: true, text: '' };
  }
  const result = (JSON.parse(res.body) as { result: { isError?: boolean; structuredContent: Record<string, unknown>; content: { text: string }[] } }).result;
  const isError = result.isError === true;
  const status = isError ? (result.structuredContent.status as number) : 200;
  return { status, payload: result.structuredContent, headers: res.headers, isError, text: result.content[0]?.text ?? '' };
}

/** The tools a key sees in tools/list. */
export async function listTools(h: Harness, key: string): Promise<{ name: string; inputSchema: Record<string, unknown>; annotations: Record<string, unknown> }[]> {
  const res = await h.request({ method: 'POST', url: '/mcp', headers: MCP_HEADERS, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, key });
  return (JSON.parse(res.body) as { result: { tools: { name: string; inputSchema: Record<string, unknown>; annotations: Record<string, unknown> }[] } }).result.tools;
}

/**
 * What the MCP door answers for the error REST answered with `rest` (its body): the same code, status, details, param
 * and doc_url, the message in MCP words ("invalid arguments: ..." where REST says body, query or path).
 */
export function toolErrorOf(rest: Record<string, unknown>): Record<string, unknown> {
  const { code, status, error, details, param, doc_url } = rest;
  return {
    code,
    status,
    message: String(error).replace(/^invalid (body|query|path):/, 'invalid arguments:'),
    ...(details === undefined ? {} : { details }),
    ...(param === undefined ? {} : { param: param === 'Idempotency-Key' ? 'idempotency_key' : param }),
    doc_url,
  };
}
