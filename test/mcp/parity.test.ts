import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOOR_SCOPE } from '../../src/platform/auth/scopes.js';
import { audienceOf, type Operation } from '../../src/platform/operations/operation.js';
import { FIXTURES, seedOrg } from '../operations/fixtures.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { type Answer, type Call, callMcp, callRest, listTools, mcpArgsOf, toolErrorOf } from '../support/operations.js';
import { routeTable } from '../support/routes.js';

/** Fields whose values differ between two successful creates by construction. */
const VOLATILE = new Set(['id', 'source', 'created_at', 'updated_at', 'sku', 'po_number', 'claim_number', 'number', 'delivery_id', 'message_id', 'order_id', 'at', 'changed_at', 'control_number', 'x12', 'fitment_id', 'stored_at', 'written_at', 'connection_id', 'secret', 'event_id', 'endpoint_id']);

/** The structure of a payload with the values that identify one record blanked out. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) ? typeof v : shapeOf(v)]));
}

describe.each(dialects)('REST and MCP parity over the operation list (%s)', (dialect) => {
  let h: Harness;
  let operations: Operation[];
  let key: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    operations = h.gateway.operations.map((e) => e.operation);
    key = await seedOrg(h, 'parity');
  });
  afterAll(() => h.close());

  it('serves every operation on both doors, or says why not', async () => {
    const routes = routeTable(h.app);
    const rest = routes.filter((r) => r.split(' ')[1]?.startsWith('/v1/'));
    const tools = new Set((await listTools(h, key)).map((t) => t.name));
    for (const op of operations) {
      const route = `${op.method} ${op.path}`;
      if (op.absent?.rest) expect(op.absent.rest.length, op.name).toBeGreaterThan(10);
      else expect(routes, op.name).toContain(route);
      if (op.absent?.mcp) expect(op.absent.mcp.length, op.name).toBeGreaterThan(10);
      else expect(tools.has(op.name), `${op.name} is not listed for a key with its scope`).toBe(true);
    }
    // Nothing under /v1 is served that is not an operation.
    const defined = new Set(operations.map((op) => `${op.method} ${op.path}`));
    expect(rest.filter((r) => !defined.has(r))).toEqual([]);
  });

  it('names operations <resource>_<action>, once each, with a known scope', () => {
    const names = operations.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    for (const op of operations) {
      expect(op.name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
      const audience = audienceOf(op);
      if (audience !== 'api') expect(op.scope, op.name).toBe(DOOR_SCOPE[audience]);
      else if (typeof op.scope === 'string') expect(h.gateway.scopes.isKnown(op.scope), `${op.name}: ${op.scope}`).toBe(true);
    }
  });

  const both = async (op: Operation, call: Call): Promise<[Answer, Answer]> => [
    await callRest(h, op, call, key),
    await callMcp(h, op.name, mcpArgsOf(op, call), key),
  ];

  it('gives the same result through both doors: equal for reads, the same shape for writes', async () => {
    for (const op of operations) {
      const fixture = FIXTURES[op.name];
      if (!fixture || op.absent) continue;
      if (op.hints.readOnly) {
        const [rest, mcp] = await both(op, await fixture(h, 'parity'));
        expect(rest.status, `${op.name}: ${JSON.stringify(rest.payload)}`).toBeLessThan(300);
        expect(mcp.payload, op.name).toEqual(rest.payload);
      } else {
        // Each write on a fresh fixture: the second call of the same one would be a different call (a duplicate).
        const rest = await callRest(h, op, await fixture(h, 'parity'), key);
        const call = await fixture(h, 'parity');
        const mcp = await callMcp(h, op.name, mcpArgsOf(op, call), key);
        expect(rest.status, `${op.name}: ${JSON.stringify(rest.payload)}`).toBeLessThan(300);
        expect(mcp.isError, `${op.name}: ${mcp.text}`).toBe(false);
        expect(shapeOf(mcp.payload), op.name).toEqual(shapeOf(rest.payload));
      }
    }
  });

  it('gives the same code and details for invalid input and for a missing record', async () => {
    for (const op of operations) {
      const fixture = FIXTURES[op.name];
      if (!fixture || op.absent || op.mcp) continue;
      const call = await fixture(h, 'parity');
      const params = Object.keys(op.params?.shape ?? {});
      if (params.length > 0 && !op.path.startsWith('/v1/objects/')) {
        const missing = { ...call, params: Object.fromEntries(params.map((p) => [p, 'NO-SUCH-RECORD'])) };
        const [rest, mcp] = await both(op, missing);
        expect(rest.status, op.name).toBe(404);
        expect(mcp.payload, op.name).toEqual(toolErrorOf(rest.payload));
      }
      if (op.body) {
        const invalid = { ...call, body: { ...(call.body as object), [Object.keys(call.body as object)[0] ?? 'x']: { nested: [1] } } };
        const [rest, mcp] = await both(op, invalid);
        expect(rest.status, `${op.name}: ${JSON.stringify(rest.payload)}`).toBe(400);
        expect(mcp.payload, op.name).toEqual(toolErrorOf(rest.payload));
      }
    }
  });
});
