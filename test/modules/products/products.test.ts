import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, itChecksAuth } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

interface ProductBody {
  sku: string;
  name: string;
  description: string | null;
  status: string;
  stock_qty: number;
  stock_status: string;
  bin_location: string | null;
}

describe.each(dialects)('products (%s)', (dialect) => {
  let h: Harness;
  let rw: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    rw = (await h.key('acme', 'products:read,products:write')).key;
  });
  afterAll(async () => h.close());

  const create = (payload: unknown, key = rw) => h.request({ method: 'POST', url: '/v1/products', payload: payload as object, key });

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'GET', url: '/v1/products', scope: 'products:read' });
    itChecksAuth(() => h, { method: 'GET', url: '/v1/products/ANY', scope: 'products:read' });
    itChecksAuth(() => h, { method: 'POST', url: '/v1/products', scope: 'products:write', payload: { sku: 'AUTH-1', name: 'x' } });
    itChecksAuth(() => h, { method: 'PATCH', url: '/v1/products/ANY', scope: 'products:write', payload: { name: 'x' } });
  });

  it('creates, reads case-insensitively and updates a product', async () => {
    const res = await create({ sku: 'Mich-225-45R17', name: 'Pilot Sport', stock_qty: 20, bin_location: 'A-01' });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ ok: boolean; product: ProductBody }>();
    expect(created.ok).toBe(true);
    expect(created.product).toMatchObject({ sku: 'Mich-225-45R17', status: 'active', stock_qty: 20, stock_status: 'in_stock', bin_location: 'A-01' });

    const got = await h.request({ method: 'GET', url: '/v1/products/mich-225-45r17', key: rw });
    expect(got.statusCode).toBe(200);
    expect(got.json<{ product: ProductBody }>().product.sku).toBe('Mich-225-45R17');

    const patched = await h.request({ method: 'PATCH', url: '/v1/products/MICH-225-45R17', key: rw, payload: { stock_qty: 3, name: 'Pilot Sport 5', description: null } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json<{ product: ProductBody }>().product).toMatchObject({ name: 'Pilot Sport 5', stock_qty: 3, stock_status: 'low_stock' });
  });

  it('refuses a duplicate SKU case-insensitively with 409', async () => {
    expect((await create({ sku: 'DUP-1', name: 'a' })).statusCode).toBe(201);
    expectError(await create({ sku: 'dup-1', name: 'b' }), 409, 'already_exists');
  });

  it('derives stock_status with the default thresholds', async () => {
    const cases: [number, string][] = [[-5, 'backorder'], [0, 'backorder'], [1, 'low_stock'], [8, 'low_stock'], [9, 'in_stock']];
    for (const [qty, status] of cases) {
      const res = await create({ sku: `THR-${qty}`, name: 't', stock_qty: qty });
      expect(res.json<{ product: ProductBody }>().product.stock_status, `qty ${qty}`).toBe(status);
    }
  });

  it('uses per-org thresholds and recomputes stored statuses when they change', async () => {
    const k = (await h.key('thresholds-org', 'products:read,products:write')).key;
    await h.request({ method: 'POST', url: '/v1/products', key: k, payload: { sku: 'T-15', name: 't', stock_qty: 15 } });
    await h.gateway.services.orgs.setSettings('thresholds-org', ['stock.low_threshold=20', 'stock.backorder_threshold=2']);
    const after = await h.request({ method: 'GET', url: '/v1/products/T-15', key: k });
    expect(after.json<{ product: ProductBody }>().product.stock_status).toBe('low_stock');
    const p2 = await h.request({ method: 'PATCH', url: '/v1/products/T-15', key: k, payload: { stock_qty: 2 } });
    expect(p2.json<{ product: ProductBody }>().product.stock_status).toBe('backorder');
    // the other org keeps the defaults
    const other = await create({ sku: 'T-15-DEFAULT', name: 't', stock_qty: 15 });
    expect(other.json<{ product: ProductBody }>().product.stock_status).toBe('in_stock');
    await expect(h.gateway.services.orgs.setSettings('thresholds-org', ['stock.backorder_threshold=30'])).rejects.toThrow(/below/);
    await expect(h.gateway.services.orgs.setSettings('thresholds-org', ['stock.nope=1'])).rejects.toThrow(/unknown setting/);
  });

  it('refuses stock_status and unknown fields on update', async () => {
    await create({ sku: 'SS-1', name: 'x' });
    const res = expectError(await h.request({ method: 'PATCH', url: '/v1/products/SS-1', key: rw, payload: { stock_status: 'in_stock' } }), 400, 'invalid_input');
    expect(res.error).toMatch(/stock_status/);
    expectError(await h.request({ method: 'PATCH', url: '/v1/products/SS-1', key: rw, payload: { sku: 'NEW' } }), 400, 'invalid_input');
    expectError(await h.request({ method: 'PATCH', url: '/v1/products/SS-1', key: rw, payload: {} }), 400, 'invalid_input');
    expectError(await h.request({ method: 'PATCH', url: '/v1/products/NOPE', key: rw, payload: { name: 'x' } }), 404, 'not_found');
    expectError(await h.request({ method: 'GET', url: '/v1/products/NOPE', key: rw }), 404, 'not_found');
  });

  it('lists active products only, pages with a cursor and searches sku and name', async () => {
    const k = (await h.key('list-org', 'products:read,products:write')).key;
    for (let i = 0; i < 7; i++) {
      await h.request({ method: 'POST', url: '/v1/products', key: k, payload: { sku: `L-${i}`, name: i === 3 ? 'Winter Special' : `Tire ${i}` } });
    }
    await h.request({ method: 'PATCH', url: '/v1/products/L-5', key: k, payload: { status: 'discontinued' } });
    await h.request({ method: 'PATCH', url: '/v1/products/L-6', key: k, payload: { status: 'inactive' } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/products?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await h.request({ method: 'GET', url, key: k });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ products: ProductBody[]; next_cursor: string | null }>();
      expect(body.products.length).toBeLessThanOrEqual(2);
      seen.push(...body.products.map((p) => p.sku));
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['L-0', 'L-1', 'L-2', 'L-3', 'L-4']);
    const search = await h.request({ method: 'GET', url: '/v1/products?q=winter', key: k });
    expect(search.json<{ products: ProductBody[] }>().products.map((p) => p.sku)).toEqual(['L-3']);
    const bySku = await h.request({ method: 'GET', url: '/v1/products?q=l-4', key: k });
    expect(bySku.json<{ products: ProductBody[] }>().products.map((p) => p.sku)).toEqual(['L-4']);
    const wildcard = await h.request({ method: 'GET', url: '/v1/products?q=%25', key: k });
    expect(wildcard.json<{ products: ProductBody[] }>().products).toEqual([]);
    // a discontinued product is still found by SKU
    expect((await h.request({ method: 'GET', url: '/v1/products/L-5', key: k })).statusCode).toBe(200);
    expectError(await h.request({ method: 'GET', url: '/v1/products?cursor=garbage', key: k }), 400, 'invalid_input');
    expectError(await h.request({ method: 'GET', url: '/v1/products?limit=0', key: k }), 400, 'invalid_input');
    expectError(await h.request({ method: 'GET', url: '/v1/products?limit=abc', key: k }), 400, 'invalid_input');
    expectError(await h.request({ method: 'GET', url: '/v1/products?bogus=1', key: k }), 400, 'invalid_input');
  });

  it("keeps orgs apart: another org's product is a 404 to read, change or list", async () => {
    const a = (await h.key('iso-a', 'products:read,products:write')).key;
    const b = (await h.key('iso-b', 'products:read,products:write')).key;
    await h.request({ method: 'POST', url: '/v1/products', key: a, payload: { sku: 'SECRET-1', name: 'a only' } });
    expectError(await h.request({ method: 'GET', url: '/v1/products/SECRET-1', key: b }), 404, 'not_found');
    expectError(await h.request({ method: 'PATCH', url: '/v1/products/SECRET-1', key: b, payload: { name: 'pwned' } }), 404, 'not_found');
    const list = await h.request({ method: 'GET', url: '/v1/products', key: b });
    expect(list.json<{ products: ProductBody[] }>().products.map((p) => p.sku)).not.toContain('SECRET-1');
    // the same SKU may exist in both orgs
    expect((await h.request({ method: 'POST', url: '/v1/products', key: b, payload: { sku: 'secret-1', name: 'b own' } })).statusCode).toBe(201);
    const stillA = await h.request({ method: 'GET', url: '/v1/products/secret-1', key: a });
    expect(stillA.json<{ product: ProductBody }>().product.name).toBe('a only');
  });

  it('answers every malformed create with a 400 envelope, never a 500', async () => {
    const bad = fc.oneof(
      fc.anything(),
      fc.record({ sku: fc.anything(), name: fc.anything() }, { requiredKeys: [] }),
      fc.record({ sku: fc.constantFrom('', ' ', 'a b', 'x'.repeat(65), 'tab\there'), name: fc.string() }),
      fc.record({ sku: fc.constant('OK-1'), name: fc.constant('n'), stock_qty: fc.oneof(fc.double(), fc.string(), fc.constant(1e12)) }),
      fc.record({ sku: fc.constant('OK-2'), name: fc.constant('n'), status: fc.string() }),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (payload) => {
        const res = await h.request({ method: 'POST', url: '/v1/products', key: rw, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
        expect(res.statusCode).toBeLessThan(500);
        if (res.statusCode >= 400) {
          const body = res.json<{ ok: boolean; status: number }>();
          expect(body.ok).toBe(false);
          expect(body.status).toBe(res.statusCode);
        }
      }),
      { numRuns: 150 },
    );
  });
});
