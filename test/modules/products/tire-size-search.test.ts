import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { callMcp } from '../../support/operations.js';
import { portalKey, portalRequest } from '../portal/portal-support.js';

interface Listed {
  products: { sku: string; tire_size: string | null }[];
  next_cursor: string | null;
}

const CATALOG = [
  { sku: 'PS4-22545', name: 'Michelin Pilot Sport 4 225/45R17 94Y' },
  { sku: 'P7-22545', name: 'Pirelli Cinturato P7 P225/45R17 91V' },
  { sku: 'RE71', name: 'Bridgestone Potenza RE-71RS', tire_size: '225-45ZR17 94W' },
  { sku: 'T005-20555', name: 'Bridgestone Turanza T005 205/55R16 91V' },
  { sku: 'KO2-LT', name: 'BFGoodrich All-Terrain T/A KO2 LT245/75R16 120/116S' },
  { sku: 'DEF-P', name: 'Goodyear Wrangler 245/75R16 109S' },
  { sku: 'MT-FLOAT', name: 'Toyo Open Country M/T 33x12.50R15LT 108Q' },
  { sku: 'TRAILER', name: 'Carlisle Radial Trail HD ST205/75R15' },
  { sku: 'NOSIZE', name: 'Valve stem kit' },
];

/** What a shopper types, and the SKUs it must find (every spelling of one size finds the same tires). */
const SEARCHES: [string, string[]][] = [
  ['225/45R17', ['P7-22545', 'PS4-22545', 'RE71']],
  ['225 45 17', ['P7-22545', 'PS4-22545', 'RE71']],
  ['22545R17', ['P7-22545', 'PS4-22545', 'RE71']],
  ['225/45/17', ['P7-22545', 'PS4-22545', 'RE71']],
  ['225-45r17', ['P7-22545', 'PS4-22545', 'RE71']],
  ['P225/45R17', ['P7-22545', 'PS4-22545', 'RE71']],
  // A load index and speed rating narrow to the tires stored with the same ones (LT: the single-tire load).
  ['225/45R17 94W', ['RE71']],
  ['225/45ZR17 (94W)', ['RE71']],
  ['225/45R17 94Y', ['PS4-22545']],
  ['P225/45R17 91V', ['P7-22545']],
  ['225/45R17 95W', []],
  ['LT245/75R16 120/116S', ['KO2-LT']],
  ['LT245/75R16 120S', ['KO2-LT']],
  ['245/75R16 109S', ['DEF-P']],
  ['33x12.50R15LT 108Q', ['MT-FLOAT']],
  // No load or speed stored: not shown as matching ones asked for.
  ['ST205/75R15 101M', []],
  // A size and words: the size AND each word (in SKU or name), wherever they stand.
  ['michelin 225/45R17', ['PS4-22545']],
  ['225 45 17 pilot', ['PS4-22545']],
  ['Pilot Sport 225-45r17 94Y', ['PS4-22545']],
  ['pirelli p225/45r17 91v', ['P7-22545']],
  ['bridgestone 225/45R17', ['RE71']],
  ['bridgestone 205 55 16', ['T005-20555']],
  ['goodyear 225/45R17', []],
  ['wrangler 245/75R16', ['DEF-P']],
  ['ko2 245/75R16', []],
  ['ko2 LT245/75R16', ['KO2-LT']],
  ['225/45R17 michelin 94W', []],
  ['LT245/75R16', ['KO2-LT']],
  ['245/75R16LT', ['KO2-LT']],
  ['245/75R16', ['DEF-P']],
  ['P245/75R16', ['DEF-P']],
  ['33x12.5R15', ['MT-FLOAT']],
  ['33X12.50-15LT', ['MT-FLOAT']],
  ['ST205/75R15', ['TRAILER']],
  ['205/75R15', []],
  ['195/65R15', []],
  // Not sizes: substring search of SKU and name, as before.
  ['r17', ['P7-22545', 'PS4-22545']],
  ['pilot', ['PS4-22545']],
  ['225/45', ['P7-22545', 'PS4-22545']],
  ['valve', ['NOSIZE']],
];

describe.each(dialects)('tire-size search (%s)', (dialect) => {
  let h: Harness;
  let rw: string;
  let portal: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    rw = (await h.key('sizes', 'products:read,products:write')).key;
    portal = (await portalKey(h, 'sizes')).key;
    for (const payload of CATALOG) {
      const res = await h.request({ method: 'POST', url: '/v1/products', payload, key: rw });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => h.close());

  const skusOf = (body: Listed) => body.products.map((p) => p.sku).sort();
  const list = async (q: string) => {
    const res = await h.request({ method: 'GET', url: `/v1/products?${new URLSearchParams({ q }).toString()}`, key: rw });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Listed>();
  };

  it('stores the size normalized: the one given, else the one in the name', async () => {
    const sizes = Object.fromEntries((await h.request({ method: 'GET', url: '/v1/products?limit=50', key: rw })).json<Listed>().products.map((p) => [p.sku, p.tire_size]));
    expect(sizes).toEqual({
      'PS4-22545': '225/45R17',
      'P7-22545': '225/45R17',
      RE71: '225/45R17',
      'T005-20555': '205/55R16',
      'KO2-LT': 'LT245/75R16',
      'DEF-P': '245/75R16',
      'MT-FLOAT': '33X12.50R15',
      TRAILER: 'ST205/75R15',
      NOSIZE: null,
    });
  });

  it.each(SEARCHES)('GET /v1/products?q=%j finds %j', async (q, skus) => {
    expect(skusOf(await list(q))).toEqual(skus);
  });

  it('searches the same way on the dealer portal and through MCP', async () => {
    for (const [q, skus] of SEARCHES) {
      const res = await portalRequest(h, { url: `/api/portal/v1/products?${new URLSearchParams({ q }).toString()}`, key: portal });
      expect(res.statusCode, res.body).toBe(200);
      expect(skusOf(res.json<Listed>()), `portal q=${q}`).toEqual(skus);
    }
    const answer = await callMcp(h, 'products_list', { q: '225 45 17' }, rw);
    expect(answer.status, answer.text).toBe(200);
    expect(skusOf(answer.payload as unknown as Listed)).toEqual(['P7-22545', 'PS4-22545', 'RE71']);
  });

  it('pages a size search by SKU with the cursor', async () => {
    const first = await h.request({ method: 'GET', url: '/v1/products?q=225+45+17&limit=2', key: rw });
    const page1 = first.json<Listed>();
    expect(page1.products.map((p) => p.sku)).toEqual(['P7-22545', 'PS4-22545']);
    const second = await h.request({ method: 'GET', url: `/v1/products?q=225+45+17&limit=2&cursor=${encodeURIComponent(page1.next_cursor ?? '')}`, key: rw });
    expect(second.json<Listed>()).toEqual({ ok: true, products: [expect.objectContaining({ sku: 'RE71' })], next_cursor: null });
  });

  it('follows a renamed product and a size given or cleared on update', async () => {
    const patch = (payload: object) => h.request({ method: 'PATCH', url: '/v1/products/T005-20555', key: rw, payload });
    expect((await patch({ name: 'Bridgestone Turanza T005 215/55R17 94V' })).json<{ product: { tire_size: string } }>().product.tire_size).toBe('215/55R17');
    expect(skusOf(await list('215 55 17'))).toEqual(['T005-20555']);
    // A size given wins over the name, also when the name changes afterwards.
    expect((await patch({ tire_size: 'p205/60r16' })).json<{ product: { tire_size: string } }>().product.tire_size).toBe('205/60R16');
    expect((await patch({ name: 'Turanza T005 225/45R17' })).json<{ product: { tire_size: string } }>().product.tire_size).toBe('205/60R16');
    // Cleared: the name's size again.
    expect((await patch({ tire_size: null })).json<{ product: { tire_size: string } }>().product.tire_size).toBe('225/45R17');
    expect(skusOf(await list('215 55 17'))).toEqual([]);
  });

  it('refuses a tire_size that is not one, on create and on update', async () => {
    for (const tire_size of ['big', '225/47R17', '225/45R17 michelin', 'x'.repeat(41), '']) {
      const created = expectError(await h.request({ method: 'POST', url: '/v1/products', payload: { sku: 'BAD-SIZE', name: 'Bad', tire_size }, key: rw }), 400, 'invalid_input');
      expect(JSON.stringify(created.details), tire_size).toContain('tire_size');
      expectError(await h.request({ method: 'PATCH', url: '/v1/products/RE71', payload: { tire_size }, key: rw }), 400, 'invalid_input');
    }
    expectError(await h.request({ method: 'POST', url: '/v1/products', payload: { sku: 'BAD-SIZE', name: 'Bad', tire_size: 225 }, key: rw }), 400, 'invalid_input');
    expectError(await h.request({ method: 'PATCH', url: '/v1/products/NOPE', payload: { tire_size: '225/45R17' }, key: rw }), 404, 'not_found');
  });

  it('keeps its bad-input answers for q: too long, control characters', async () => {
    expectError(await h.request({ method: 'GET', url: `/v1/products?q=${'2'.repeat(101)}`, key: rw }), 400, 'invalid_input');
    expectError(await h.request({ method: 'GET', url: '/v1/products?q=225%0045R17', key: rw }), 400, 'invalid_input');
  });
});
