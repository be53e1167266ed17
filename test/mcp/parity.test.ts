import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { isKnownScope } from '../../src/platform/auth/scopes.js';
import { type Harness, startHarness } from '../support/harness.js';
import { routeTable } from '../support/routes.js';

/**
 * REST operations under /v1 that deliberately have no MCP tool, each with the reason. Empty today: every operation
 * is also a tool. Add an entry only when a tool cannot carry the operation, and say why.
 */
const REST_WITHOUT_TOOL: Record<string, string> = {};

/** Tools that deliberately mirror no REST operation (`rest: null`), each with the reason. */
const TOOLS_WITHOUT_REST: Record<string, string> = {};

describe('REST and MCP parity', () => {
  let h: Harness;
  let rest: string[];
  let tools: ToolDefinition[];
  beforeAll(async () => {
    h = await startHarness('sqlite');
    rest = routeTable(h.app).filter((r) => r.split(' ')[1]?.startsWith('/v1/'));
    tools = allTools(h.gateway.services);
  });
  afterAll(() => h.close());

  it('reads the route table (a parse that finds nothing must not pass for parity)', () => {
    expect(rest).toEqual(expect.arrayContaining(['GET /v1/products', 'GET /v1/products/:sku', 'PATCH /v1/products/:sku', 'POST /v1/products']));
  });

  it('has a tool for every REST operation under /v1, or a reasoned exception', () => {
    const mirrored = new Set(tools.map((t) => t.rest));
    const missing = rest.filter((r) => !mirrored.has(r) && !(r in REST_WITHOUT_TOOL));
    expect(missing, 'REST operations with no MCP tool: add the tool to the module and src/mcp/registry.ts').toEqual([]);
  });

  it('has a REST operation for every tool, or a reasoned exception', () => {
    const orphans = tools.filter((t) => (t.rest === null ? !(t.name in TOOLS_WITHOUT_REST) : !rest.includes(t.rest)));
    expect(orphans.map((t) => `${t.name} -> ${t.rest ?? 'null'}`)).toEqual([]);
  });

  it('keeps the exception lists honest: each names something that exists and gives a reason', () => {
    for (const [route, reason] of Object.entries(REST_WITHOUT_TOOL)) {
      expect(rest, route).toContain(route);
      expect(tools.some((t) => t.rest === route), `${route} has a tool now: drop the exception`).toBe(false);
      expect(reason.length, route).toBeGreaterThan(10);
    }
    for (const [name, reason] of Object.entries(TOOLS_WITHOUT_REST)) {
      expect(tools.find((t) => t.name === name)?.rest, name).toBeNull();
      expect(reason.length, name).toBeGreaterThan(10);
    }
  });

  it('names tools <resource>_<action>, once each, with a known scope', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
      if (typeof tool.scope === 'string') expect(isKnownScope(tool.scope), `${tool.name}: ${tool.scope}`).toBe(true);
    }
  });
});
