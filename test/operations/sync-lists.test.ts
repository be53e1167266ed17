import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { callMcp } from '../support/operations.js';
import { seedEdiCatalog } from '../modules/edi/edi-support.js';

interface Row {
  sku?: string;
  po_number?: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** updated_since / created_since: a partner syncs a list incrementally, in time order, through REST and MCP alike. */
describe.each(dialects)('lists a partner syncs by time (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  const at: string[] = [];

  const get = async (url: string) => {
    const res = await h.request({ method: 'GET', url, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Record<string, unknown> & { next_cursor: string | null }>();
  };
  const send = async (method: 'POST' | 'PATCH', url: string, payload: object) => {
    const res = await h.request({ method, url, payload, key });
    expect(res.statusCode, res.body).toBeLessThan(300);
  };
  const skus = (body: Record<string, unknown>) => (body.products as Row[]).map((p) => p.sku);

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    key = (await h.key('acme', 'all')).key;
    // t0: SYNC-A, t1: SYNC-B, t2: SYNC-C and order PO-S1, t3: PO-S2, t4: SYNC-A discontinued and PO-S1 confirmed.
    const step = () => {
      h.clock.advance(60_000);
      at.push(h.clock.now().toISOString());
    };
    step();
    await send('POST', '/v1/products', { sku: 'SYNC-A', name: 'Sync A', stock_qty: 5 });
    step();
    await send('POST', '/v1/products', { sku: 'SYNC-B', name: 'Sync B', stock_qty: 5 });
    step();
    await send('POST', '/v1/products', { sku: 'SYNC-C', name: 'Sync C', stock_qty: 5, status: 'inactive' });
    await send('POST', '/v1/orders', { po_number: 'PO-S1', ship_to: 'Dealer 1, Main St', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '10' }] });
    step();
    await send('POST', '/v1/orders', { po_number: 'PO-S2', ship_to: 'Dealer 2, Main St', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '10' }] });
    step();
    await send('PATCH', '/v1/products/SYNC-A', { status: 'discontinued' });
    await send('PATCH', '/v1/orders/PO-S1/status', { status: 'confirmed' });
  });
  afterAll(() => h.close());

  it('filters products by status: active by default, or the one asked', async () => {
    expect(skus(await get('/v1/products?q=sync-'))).toEqual(['SYNC-B']);
    expect(skus(await get('/v1/products?q=sync-&status=inactive'))).toEqual(['SYNC-C']);
    expect(skus(await get('/v1/products?q=sync-&status=discontinued'))).toEqual(['SYNC-A']);
  });

  it('lists products changed since an instant oldest first, whatever their status, paging in that order', async () => {
    expect(skus(await get(`/v1/products?q=sync-&updated_since=${at[1]}`))).toEqual(['SYNC-B', 'SYNC-C', 'SYNC-A']);
    // The instant is inclusive, and any zone names the same instant.
    const plusTwo = new Date(Date.parse(at[1] ?? '') + 2 * 3600_000).toISOString().replace('.000Z', '+02:00');
    expect(skus(await get(`/v1/products?q=sync-&updated_since=${encodeURIComponent(plusTwo)}`))).toEqual(['SYNC-B', 'SYNC-C', 'SYNC-A']);
    expect(skus(await get(`/v1/products?q=sync-&updated_since=${at[4]}`))).toEqual(['SYNC-A']);
    expect(skus(await get(`/v1/products?q=sync-&updated_since=${at[1]}&status=active`))).toEqual(['SYNC-B']);
    const first = await get(`/v1/products?q=sync-&updated_since=${at[0]}&limit=2`);
    expect(skus(first)).toEqual(['SYNC-B', 'SYNC-C']);
    const second = await get(`/v1/products?q=sync-&updated_since=${at[0]}&limit=2&cursor=${first.next_cursor}`);
    expect(skus(second)).toEqual(['SYNC-A']);
    expect(second.next_cursor).toBeNull();
  });

  it('lists orders changed or created since an instant, oldest first', async () => {
    const pos = (body: Record<string, unknown>) => (body.orders as Row[]).map((o) => o.po_number);
    expect(pos(await get(`/v1/orders?updated_since=${at[2]}`))).toEqual(['PO-S2', 'PO-S1']);
    expect(pos(await get(`/v1/orders?updated_since=${at[4]}`))).toEqual(['PO-S1']);
    expect(pos(await get(`/v1/orders?created_since=${at[2]}`))).toEqual(['PO-S1', 'PO-S2']);
    expect(pos(await get(`/v1/orders?created_since=${at[3]}&status=submitted`))).toEqual(['PO-S2']);
  });

  it('answers the same through the MCP tools', async () => {
    const rest = await get(`/v1/products?q=sync-&updated_since=${at[1]}&limit=2`);
    const tool = await callMcp(h, 'products_list', { q: 'sync-', updated_since: at[1], limit: 2 }, key);
    expect(tool.isError).toBe(false);
    const { ok: _ok, ...restPayload } = rest;
    expect(tool.payload).toEqual(restPayload);
    const orders = await callMcp(h, 'orders_list', { created_since: at[3] }, key);
    expect((orders.payload.orders as Row[]).map((o) => o.po_number)).toEqual(['PO-S2']);
  });

  const lists = ['/v1/products', '/v1/orders', '/v1/warranty-claims', '/v1/edi/messages', '/v1/telematics/connections'];

  it.each(lists)('%s refuses an updated_since that is not an instant with a zone', async (path) => {
    for (const bad of ['yesterday', '2026-06-01', '2026-06-01T12:00:00', '2026-13-01T00:00:00Z', '1780000000', '']) {
      const body = expectError(await h.request({ method: 'GET', url: `${path}?updated_since=${encodeURIComponent(bad)}`, key }), 400, 'invalid_input');
      expect(body.error, bad).toMatch(/updated_since must be an ISO 8601 timestamp with a zone/);
    }
  });

  it.each(['/v1/orders', '/v1/warranty-claims', '/v1/edi/messages'])('%s refuses updated_since and created_since together, and a bad created_since', async (path) => {
    const both = expectError(await h.request({ method: 'GET', url: `${path}?updated_since=${at[0]}&created_since=${at[0]}`, key }), 400, 'invalid_input');
    expect(both.error).toMatch(/updated_since or created_since, not both/);
    expectError(await h.request({ method: 'GET', url: `${path}?created_since=soon`, key }), 400, 'invalid_input');
  });

  it.each([
    ['/v1/products', 'created_since'],
    ['/v1/telematics/connections', 'created_since'],
  ])('%s takes no %s', async (path, param) => {
    expectError(await h.request({ method: 'GET', url: `${path}?${param}=${at[0]}`, key }), 400, 'invalid_input');
  });

  it('refuses an unknown product status, on REST and MCP', async () => {
    const body = expectError(await h.request({ method: 'GET', url: '/v1/products?status=archived', key }), 400, 'invalid_input');
    expect(body.error).toMatch(/status must be active, inactive or discontinued/);
    expect(await callMcp(h, 'products_list', { status: 'archived' }, key)).toMatchObject({ isError: true, status: 400 });
    expect(await callMcp(h, 'products_list', { updated_since: 'last week' }, key)).toMatchObject({ isError: true, status: 400 });
  });

  it('refuses a cursor of another order: the usual one with updated_since, or one of updated_since with created_since', async () => {
    const usual = await get('/v1/orders?limit=1');
    expectError(await h.request({ method: 'GET', url: `/v1/orders?limit=1&updated_since=${at[0]}&cursor=${usual.next_cursor}`, key }), 400, 'invalid_input');
    const synced = await get(`/v1/orders?limit=1&updated_since=${at[0]}`);
    const other = expectError(await h.request({ method: 'GET', url: `/v1/orders?limit=1&created_since=${at[0]}&cursor=${synced.next_cursor}`, key }), 400, 'invalid_input');
    expect(other.error).toMatch(/ordered by updated_at/);
    expectError(await h.request({ method: 'GET', url: `/v1/orders?limit=1&cursor=${synced.next_cursor}`, key }), 400, 'invalid_input');
  });
});
