import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation } from '../../src/platform/operations/operation.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { type Call, callMcp, callRest, mcpArgsOf, restRequest } from '../support/operations.js';
import { FIXTURES, seedOrg } from './fixtures.js';

/**
 * The checks every operation gets on both doors, from the operation list (in the spirit of Unkey's runCommonRouteTests):
 * a new module's operations are covered the day they exist, and the meta-test fails until they have a fixture.
 */
describe.each(dialects)('every operation, both doors (%s)', (dialect) => {
  let h: Harness;
  let operations: Operation[];
  let otherOrgKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    operations = h.gateway.operations.map((e) => e.operation);
    await seedOrg(h, 'owner');
    otherOrgKey = await seedOrg(h, 'stranger');
  });
  afterAll(() => h.close());

  const scopeOf = (op: Operation, call: Call) => call.scope ?? (typeof op.scope === 'string' ? op.scope : '');
  /** A key of the owner org with every scope but the one the operation needs. */
  const keyWithout = async (scope: string) => {
    const all = ['products:read', 'products:write', 'orders:read', 'orders:write', 'inventory:write', 'warranty:read', 'warranty:write', 'edi:read', 'edi:write', 'objects:fitments:read', 'objects:fitments:write'];
    return (await h.key('owner', all.filter((s) => s !== scope).join(','))).key;
  };

  it('has a fixture for every operation (so every operation gets the checks below)', () => {
    const missing = operations.map((op) => op.name).filter((name) => !(name in FIXTURES));
    expect(missing, 'add a fixture in test/operations/fixtures.ts').toEqual([]);
    const stale = Object.keys(FIXTURES).filter((name) => !operations.some((op) => op.name === name));
    expect(stale, 'fixtures for operations that no longer exist').toEqual([]);
  });

  it('no key -> 401 with WWW-Authenticate: Bearer, on REST and MCP', async () => {
    for (const op of operations) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const rest = await callRest(h, op, call, undefined);
      expect(rest.status, `${op.name} REST`).toBe(401);
      expect(rest.payload.code, op.name).toBe('unauthorized');
      expect(String(rest.headers['www-authenticate']), op.name).toMatch(/^Bearer\b/);
      const mcp = await callMcp(h, op.name, mcpArgsOf(op, call), undefined);
      expect(mcp.status, `${op.name} MCP`).toBe(401);
      expect(String(mcp.headers['www-authenticate']), op.name).toMatch(/^Bearer\b/);
    }
  });

  it("another org's resource -> 404, on REST and MCP", async () => {
    const addressed = operations.filter((op) => op.params !== undefined && Object.keys(op.params.shape).length > 0 && !op.path.startsWith('/v1/objects/'));
    expect(addressed.length).toBeGreaterThan(5);
    for (const op of addressed) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const rest = await callRest(h, op, call, otherOrgKey);
      expect(rest.status, `${op.name} REST: ${JSON.stringify(rest.payload)}`).toBe(404);
      expect(rest.payload.code).toBe('not_found');
      const mcp = await callMcp(h, op.name, mcpArgsOf(op, call), otherOrgKey);
      expect(mcp.status, `${op.name} MCP: ${mcp.text}`).toBe(404);
      expect(mcp.payload.code).toBe('not_found');
    }
  });

  it('missing scope -> 403 missing scope: <scope>, on REST and MCP', async () => {
    for (const op of operations) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const scope = scopeOf(op, call);
      const key = await keyWithout(scope);
      const rest = await callRest(h, op, call, key);
      if (typeof op.scope !== 'string' && op.params === undefined) {
        // A rule-scoped listing (the objects this key can read) shows nothing it may not read, rather than refusing.
        expect(rest.status, op.name).toBe(200);
        expect(JSON.stringify(rest.payload), op.name).not.toContain(scope.split(':')[1] ?? scope);
        continue;
      }
      expect(rest.status, `${op.name} REST: ${JSON.stringify(rest.payload)}`).toBe(403);
      expect(rest.payload.error).toBe(`missing scope: ${scope}`);
      const mcp = await callMcp(h, op.name, mcpArgsOf(op, call), key);
      expect(mcp.status, `${op.name} MCP: ${mcp.text}`).toBe(403);
      expect(mcp.payload).toMatchObject({ code: 'missing_scope', message: `missing scope: ${scope}` });
      expect(mcp.text).toBe(`missing_scope: missing scope: ${scope}`);
    }
  });

  it('an unknown field -> 400 invalid_input, on REST and MCP alike', async () => {
    const key = await seedOrg(h, 'owner');
    for (const op of operations) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      // Object filters are the object's own fields: an unknown one is the filter check's 400, not the schema's.
      const withBodyField = op.body !== undefined;
      const stray = withBodyField
        ? { ...call, body: { ...(call.body as object), zz_unknown: 1 } }
        : { ...call, query: { ...call.query, zz_unknown: '1' } };
      const rest = await callRest(h, op, stray, key);
      expect(rest.status, `${op.name} REST: ${JSON.stringify(rest.payload)}`).toBe(400);
      expect(rest.payload.code).toBe('invalid_input');
      const args = op.mcp ? { ...call.mcpArgs, zz_unknown: 1 } : { ...mcpArgsOf(op, call), zz_unknown: 1 };
      const mcp = await callMcp(h, op.name, args, key);
      expect(mcp.status, `${op.name} MCP: ${mcp.text}`).toBe(400);
      expect(mcp.payload.code).toBe('invalid_input');
      if (!op.mcp) expect(mcp.payload.details, op.name).toEqual(rest.payload.details);
    }
  });

  it('a body in a content type the operation does not take -> 415; a body-less operation takes an empty body of any type', async () => {
    const key = await seedOrg(h, 'owner');
    for (const op of operations) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      if (op.body || op.rawBody) {
        const wrongType = op.rawBody ? 'application/json' : 'text/plain';
        const res = await h.request({ ...restRequest(op, call, { 'content-type': wrongType }), key });
        expect(res.statusCode, `${op.name}: ${res.body}`).toBe(415);
        expect(res.json<{ code: string }>().code).toBe('unsupported_media_type');
        const utf16 = await h.request({ ...restRequest(op, call, { 'content-type': `${op.rawBody?.mediaTypes[0] ?? 'application/json'}; charset=utf-16` }), key });
        if (!op.rawBody) expect(utf16.statusCode, `${op.name} utf-16: ${utf16.body}`).toBe(415);
      } else if (op.method !== 'GET') {
        for (const type of ['application/json', 'text/plain', 'application/octet-stream']) {
          const fresh = await FIXTURES[op.name]?.(h, 'owner');
          if (!fresh) continue;
          const res = await h.request({ ...restRequest(op, fresh, { 'content-type': type }), payload: '', key });
          expect(res.statusCode, `${op.name} empty ${type}: ${res.body}`).toBeLessThan(300);
        }
        const res = await h.request({ ...restRequest(op, call, { 'content-type': 'application/json' }), payload: '{"zzz":1}', key });
        expect(res.statusCode, `${op.name} with a body: ${res.body}`).toBe(400);
      }
    }
  });
});
