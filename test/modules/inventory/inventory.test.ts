import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { clientKinds, listen, type McpTestClient } from '../../mcp/support/mcp-clients.js';
import { expectError, itChecksAuth } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { toolErrorOf } from '../../support/operations.js';

interface InventoryBody {
  ok: boolean;
  queued: boolean;
  delivery_id: string;
  delivery_status: string;
  applied: number;
  unknown_skus: string[];
}

describe.each(dialects)('inventory (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;
  let inv: string;
  let products: string;
  let otherInv: string;
  let mcp: McpTestClient;

  beforeAll(async () => {
    sim = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: sim.url, HUB_TIMEOUT_MS: '500' } });
    inv = (await h.key('acme', 'inventory:write')).key;
    products = (await h.key('acme', 'products:read,products:write')).key;
    otherInv = (await h.key('globex', 'inventory:write')).key;
    for (const sku of ['TIRE-1', 'TIRE-2', 'TIRE-3']) {
      await h.request({ method: 'POST', url: '/v1/products', payload: { sku, name: sku, stock_qty: 20 }, key: products });
    }
    const kind = clientKinds[0];
    if (!kind) throw new Error('no MCP client kind');
    mcp = await kind.connect(await listen(h), inv);
  });
  afterAll(async () => {
    await mcp.close();
    await h.close();
    await sim.close();
  });
  beforeEach(async () => {
    await sim.reset();
  });

  const post = (payload: unknown, key = inv, headers: Record<string, string> = {}) =>
    h.request({ method: 'POST', url: '/v1/inventory', payload: payload as object, key, headers });
  const product = async (sku: string) =>
    (await h.request({ method: 'GET', url: `/v1/products/${sku}`, key: products })).json<{ product: { stock_qty: number; stock_status: string } }>().product;

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'POST', url: '/v1/inventory', scope: 'inventory:write', payload: { rows: [{ sku: 'A', qty: 1 }] } });
  });

  it('updates known SKUs case-insensitively, recomputes stock_status, lists unknown SKUs and forwards every row (200 when the hub took it)', async () => {
    const rows = [
      { sku: 'tire-1', qty: 0 },
      { sku: 'TIRE-2', qty: 5 },
      { sku: 'NEW-9', qty: 12 },
      { sku: 'new-9', qty: 13 },
    ];
    const res = await post({ rows });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<InventoryBody>();
    expect(body).toMatchObject({ ok: true, queued: false, delivery_status: 'delivered', applied: 2, unknown_skus: ['NEW-9', 'new-9'] });
    expect(body.delivery_id).toMatch(/^evt_/);
    expect(await product('TIRE-1')).toMatchObject({ stock_qty: 0, stock_status: 'backorder' });
    expect(await product('TIRE-2')).toMatchObject({ stock_qty: 5, stock_status: 'low_stock' });
    expect(await product('TIRE-3')).toMatchObject({ stock_qty: 20, stock_status: 'in_stock' });
    const events = sim.events();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: body.delivery_id, type: 'inventory.updated', data: { rows, unknown_skus: ['NEW-9', 'new-9'] } });
  });

  it('answers 202 queued: true when the hub is down, and the stock is applied anyway', async () => {
    await sim.setMode({ kind: 'down' });
    const res = await post({ rows: [{ sku: 'TIRE-3', qty: 7 }] });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json<InventoryBody>()).toMatchObject({ ok: true, queued: true, delivery_status: 'queued', applied: 1, unknown_skus: [] });
    expect(await product('TIRE-3')).toMatchObject({ stock_qty: 7, stock_status: 'low_stock' });
    await sim.setMode({ kind: 'up' });
  });

  it('answers 202 when the hub is slower than HUB_TIMEOUT_MS', async () => {
    await sim.setMode({ kind: 'slow', delayMs: 5_000 });
    const res = await post({ rows: [{ sku: 'TIRE-3', qty: 9 }] });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json<InventoryBody>().queued).toBe(true);
    await sim.setMode({ kind: 'up' });
  });

  it('accepts 10,000 rows in one update', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ sku: i === 0 ? 'TIRE-1' : `BULK-${i}`, qty: i }));
    const res = await post({ rows });
    expect([200, 202]).toContain(res.statusCode);
    const body = res.json<InventoryBody>();
    expect(body.applied).toBe(1);
    expect(body.unknown_skus).toHaveLength(9_999);
  });

  it('isolates orgs: an update never touches another org\'s product with the same SKU', async () => {
    const res = await post({ rows: [{ sku: 'TIRE-2', qty: 999 }] }, otherInv);
    expect(res.json<InventoryBody>()).toMatchObject({ applied: 0, unknown_skus: ['TIRE-2'] });
    expect((await product('TIRE-2')).stock_qty).not.toBe(999);
  });

  const bad: [string, unknown][] = [
    ['no rows field', {}],
    ['rows not an array', { rows: { sku: 'A', qty: 1 } }],
    ['no rows', { rows: [] }],
    ['10,001 rows', { rows: Array.from({ length: 10_001 }, (_, i) => ({ sku: `S-${i}`, qty: 1 })) }],
    ['blank sku', { rows: [{ sku: '  ', qty: 1 }] }],
    ['empty sku', { rows: [{ sku: '', qty: 1 }] }],
    ['missing sku', { rows: [{ qty: 1 }] }],
    ['sku not a string', { rows: [{ sku: 7, qty: 1 }] }],
    ['missing qty', { rows: [{ sku: 'A' }] }],
    ['qty as a string', { rows: [{ sku: 'A', qty: '5' }] }],
    ['qty null', { rows: [{ sku: 'A', qty: null }] }],
    ['fractional qty', { rows: [{ sku: 'A', qty: 1.5 }] }],
    ['qty out of range', { rows: [{ sku: 'A', qty: 1e12 }] }],
    ['an unknown row field', { rows: [{ sku: 'A', qty: 1, bin: 'x' }] }],
    ['an unknown top-level field', { rows: [{ sku: 'A', qty: 1 }], warehouse: 'w' }],
    ['a sku with surrounding spaces', { rows: [{ sku: ' TIRE-1 ', qty: 1 }] }],
    ['a sku with a space inside', { rows: [{ sku: 'TIRE 1', qty: 1 }] }],
    ['a sku with a zero-width space', { rows: [{ sku: 'TIRE-\u200b1', qty: 1 }] }],
    ['a sku with a bidi isolate', { rows: [{ sku: '\u2067TIRE-1', qty: 1 }] }],
    ['a sku of 201 characters', { rows: [{ sku: 'S'.repeat(201), qty: 1 }] }],
  ];
  it.each(bad)('400 for %s', async (_label, payload) => {
    expectError(await post(payload), 400, 'invalid_input');
  });

  it('names the row and the refused character', async () => {
    const body = expectError(await post({ rows: [{ sku: 'TIRE-1', qty: 1 }, { sku: 'TIRE-\u202e2', qty: 1 }] }), 400, 'invalid_input');
    expect(body.details).toEqual([{ path: 'rows.1.sku', message: 'sku must not contain invisible or bidi-control characters (U+202E at position 6)' }]);
    expect((await product('TIRE-1')).stock_qty).not.toBe(1);
  });

  it('replays an update sent again with the same Idempotency-Key, 202 and all, and forwards it once', async () => {
    await sim.setMode({ kind: 'down' });
    const payload = { rows: [{ sku: 'TIRE-3', qty: -777 }] };
    const first = await post(payload, inv, { 'idempotency-key': 'inv-202' });
    expect(first.statusCode, first.body).toBe(202);
    await sim.setMode({ kind: 'up' });
    const again = await post(payload, inv, { 'idempotency-key': 'inv-202' });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const rows = await h.gateway.database.db.selectFrom('outbox').select('id').where('type', '=', 'inventory.updated').where('payload', 'like', '%"qty":-777%').execute();
    expect(rows.map((r) => r.id)).toEqual([first.json<InventoryBody>().delivery_id]);
  });

  describe('MCP', () => {
    interface ToolOut {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
    }
    const error = (out: ToolOut) => {
      expect(out.isError, JSON.stringify(out)).toBe(true);
      return out.structuredContent as { code: string; status: number; message: string; details?: unknown };
    };

    it('inventory_update takes the rows as its argument and answers like REST', async () => {
      const out = await mcp.call('inventory_update', { rows: [{ sku: 'tire-2', qty: 4 }, { sku: 'MCP-NEW', qty: 1 }] });
      expect(out.isError, JSON.stringify(out)).toBeFalsy();
      expect(out.structuredContent).toMatchObject({ queued: false, delivery_status: 'delivered', applied: 1, unknown_skus: ['MCP-NEW'] });
      expect(out.structuredContent?.ok).toBeUndefined();
      expect((await product('TIRE-2')).stock_qty).toBe(4);
      const listed = (await mcp.listTools()).find((t) => t.name === 'inventory_update');
      expect(listed?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true });
    });

    it('refuses an unknown argument and a bad row with the same details as REST', async () => {
      const payload = { rows: [{ sku: 'TIRE-1', qty: 1 }], warehouse: 'w' };
      const rest = expectError(await post(payload), 400, 'invalid_input');
      const viaMcp = error(await mcp.call('inventory_update', payload));
      expect(viaMcp).toEqual(toolErrorOf(rest));
      const badRow = { rows: [{ sku: 'TIRE-\u200b1', qty: 1.5 }] };
      const restRow = expectError(await post(badRow), 400, 'invalid_input');
      expect(error(await mcp.call('inventory_update', badRow)).details).toEqual(restRow.details);
    });

    it('replays a call sent again with the same idempotency_key', async () => {
      const args = { rows: [{ sku: 'TIRE-1', qty: 17 }], idempotency_key: `inv-mcp-${dialect}` };
      const first = await mcp.call('inventory_update', args);
      expect(first.isError, JSON.stringify(first)).toBeFalsy();
      const again = await mcp.call('inventory_update', args);
      expect(again.structuredContent).toEqual(first.structuredContent);
      expect(sim.events().filter((e) => e.type === 'inventory.updated')).toHaveLength(1);
      expect(error(await mcp.call('inventory_update', { ...args, rows: [{ sku: 'TIRE-1', qty: 18 }] })).code).toBe('idempotency_key_reused');
    });
  });

  it('400 for a qty that is not finite (1e400 parses to Infinity)', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/v1/inventory',
      payload: '{"rows":[{"sku":"A","qty":1e400}]}',
      headers: { 'content-type': 'application/json' },
      key: inv,
    });
    expectError(res, 400, 'invalid_input');
  });
});
