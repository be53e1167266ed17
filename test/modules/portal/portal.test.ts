import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { portalKey, portalRequest, seedCatalog } from './portal-support.js';

type Json = Record<string, unknown>;

/** Names that would tell a dealer page how many units, where they sit or what they cost. */
const FORBIDDEN = /qty|quantity|stock_qty|on_hand|bin|location|price|cost|amount|total|margin/i;

/** Every field name of a JSON value, at any depth (array items included), as `path` strings. */
function fieldPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => fieldPaths(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [`${path}.${k}`, ...fieldPaths(v, `${path}.${k}`)]);
}

const claim = (fields: Json = {}): Json => ({
  description: 'Sidewall bulge after 2,000 km',
  sku: 'PILOT-225',
  dot_number: 'DOT U2LL LMLR 5107',
  quantity: 2,
  customer_ref: 'INV-1001',
  contact_email: 'driver@example.com',
  ...fields,
});

describe.each(dialects)('dealer portal routes (%s)', (dialect) => {
  let h: Harness;
  let hub: HubSim;
  let key: string;
  let otherDealerKey: string;
  let strangerKey: string;
  /** Every portal answer a test below got: the last test walks all of them. */
  const answers: { label: string; body: unknown }[] = [];

  beforeAll(async () => {
    hub = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: hub.url, HUB_TIMEOUT_MS: '500' } });
    await seedCatalog(h, 'acme');
    await seedCatalog(h, 'globex');
    key = (await portalKey(h, 'acme')).key;
    otherDealerKey = (await portalKey(h, 'acme', { dealer: 'Shelbyville Wheels' })).key;
    strangerKey = (await portalKey(h, 'globex')).key;
  });
  afterAll(async () => {
    await h.close();
    await hub.close();
  });

  const call = async (url: string, opts: { method?: 'GET' | 'POST'; payload?: unknown; as?: string } = {}) => {
    const res = await portalRequest(h, { url, key: opts.as ?? key, ...(opts.method ? { method: opts.method } : {}), ...(opts.payload === undefined ? {} : { payload: opts.payload }) });
    answers.push({ label: `${opts.method ?? 'GET'} ${url} -> ${res.statusCode}`, body: JSON.parse(res.body) });
    return res;
  };
  const fileClaim = async (fields: Json = {}, as = key) => {
    const res = await call('/api/portal/v1/warranty-claims', { method: 'POST', payload: claim(fields), as });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ ok: true; claim_number: string; status: string }>();
  };

  describe('GET /api/portal/v1/products', () => {
    it("lists the org's active catalog with availability, ordered by SKU, in pages", async () => {
      const res = await call('/api/portal/v1/products');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        ok: true,
        products: [
          { sku: 'PILOT-225', name: 'Pilot Sport 225/45R17', description: 'Summer performance', tire_size: '225/45R17', availability: 'in_stock' },
          { sku: 'PILOT-235', name: 'Pilot Sport 235/40R18', description: null, tire_size: '235/40R18', availability: 'low_stock' },
          { sku: 'WINTER-205', name: 'Alpin 205/55R16', description: null, tire_size: '205/55R16', availability: 'backorder' },
        ],
        next_cursor: null,
      });
      const first = (await call('/api/portal/v1/products?limit=2')).json<{ products: { sku: string }[]; next_cursor: string }>();
      expect(first.products.map((p) => p.sku)).toEqual(['PILOT-225', 'PILOT-235']);
      const second = (await call(`/api/portal/v1/products?limit=2&cursor=${first.next_cursor}`)).json<{ products: { sku: string }[]; next_cursor: null }>();
      expect(second).toMatchObject({ products: [{ sku: 'WINTER-205' }], next_cursor: null });
    });

    it('searches SKU and name case-insensitively', async () => {
      const res = (await call('/api/portal/v1/products?q=alpin')).json<{ products: { sku: string }[] }>();
      expect(res.products.map((p) => p.sku)).toEqual(['WINTER-205']);
    });

    it("shows only the key's own organisation", async () => {
      const globexKey = (await h.key('globex', 'products:write')).key;
      await h.request({ method: 'POST', url: '/v1/products', payload: { sku: 'GLOBEX-ONLY', name: 'Globex special', stock_qty: 3 }, key: globexKey });
      const mine = (await call('/api/portal/v1/products?q=globex')).json<{ products: unknown[] }>();
      expect(mine.products).toEqual([]);
      const theirs = (await call('/api/portal/v1/products?q=globex', { as: strangerKey })).json<{ products: { sku: string }[] }>();
      expect(theirs.products.map((p) => p.sku)).toEqual(['GLOBEX-ONLY']);
    });

    it('refuses bad paging with 400 and details', async () => {
      for (const query of ['limit=0', 'limit=201', 'limit=abc', 'cursor=not-a-cursor', 'zz=1']) {
        const body = expectError(await call(`/api/portal/v1/products?${query}`), 400, 'invalid_input');
        if (!query.startsWith('cursor')) expect(body.details, query).toEqual([expect.objectContaining({ path: expect.any(String) as string, message: expect.any(String) as string })]);
      }
    });
  });

  describe('GET /api/portal/v1/products/:sku', () => {
    it('answers an active product case-insensitively; an inactive or unknown one is 404', async () => {
      const res = await call('/api/portal/v1/products/pilot-235');
      expect(res.json()).toEqual({ ok: true, product: { sku: 'PILOT-235', name: 'Pilot Sport 235/40R18', description: null, tire_size: '235/40R18', availability: 'low_stock' } });
      const discontinued = expectError(await call('/api/portal/v1/products/OLD-195'), 404, 'not_found');
      const unknown = expectError(await call('/api/portal/v1/products/NOPE-1'), 404, 'not_found');
      expect(discontinued.error).toBe('product OLD-195 not found');
      expect(unknown.error).toBe('product NOPE-1 not found');
      expectError(await call('/api/portal/v1/products/GLOBEX-ONLY'), 404, 'not_found');
    });
  });

  describe('GET /api/portal/v1/availability', () => {
    it('lists the known SKUs in the order asked, once each, and the rest apart as sent', async () => {
      const res = await call('/api/portal/v1/availability?skus=winter-205,NOPE-1,PILOT-225,OLD-195,Pilot-225');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        ok: true,
        products: [
          { sku: 'WINTER-205', availability: 'backorder' },
          { sku: 'PILOT-225', availability: 'in_stock' },
        ],
        unknown: ['NOPE-1', 'OLD-195'],
      });
    });

    it('takes 1 to 100 SKUs; none, more, or a bad one is 400 with details', async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => `SKU-${i}`).join(',');
      expect((await call(`/api/portal/v1/availability?skus=${hundred}`)).statusCode).toBe(200);
      const tooMany = expectError(await call(`/api/portal/v1/availability?skus=${hundred},SKU-100`), 400, 'invalid_input');
      expect(tooMany.details).toEqual([{ path: 'skus', message: 'list at most 100 SKUs' }]);
      for (const query of ['', '?skus=', '?skus=,,,']) {
        const body = expectError(await call(`/api/portal/v1/availability${query}`), 400, 'invalid_input');
        expect((body.details as { path: string }[])[0]?.path, query).toBe('skus');
      }
      const spaced = expectError(await call('/api/portal/v1/availability?skus=PILOT-225,a%E2%80%AEb'), 400, 'invalid_input');
      expect(spaced.details).toEqual([{ path: 'skus.1', message: expect.stringContaining('U+202E') as string }]);
    });
  });

  describe('POST /api/portal/v1/warranty-claims', () => {
    it('files the claim with source portal and the dealer, and the hub receives warranty_claim.created', async () => {
      const res = await call('/api/portal/v1/warranty-claims', { method: 'POST', payload: claim({ customer_ref: '  INV-2002  ', sku: 'pilot-225' }) });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json<{ claim_number: string }>();
      expect(Object.keys(body).sort()).toEqual(['claim_number', 'ok', 'status']);
      expect(body).toMatchObject({ ok: true, status: 'submitted' });
      expect(body.claim_number).toMatch(/^WC-\d{6}$/);

      const apiKey = (await h.key('acme', 'warranty:read')).key;
      const stored = (await h.request({ method: 'GET', url: `/v1/warranty-claims/${body.claim_number}`, key: apiKey })).json<{ claim: Json }>().claim;
      expect(stored).toMatchObject({ sku: 'PILOT-225', customer_ref: 'INV-2002', dealer: 'Springfield Tire', contact_email: 'driver@example.com', quantity: 2 });
      const row = await h.gateway.database.db.selectFrom('warranty_claims').select(['source', 'created_by']).where('claim_number', '=', body.claim_number).executeTakeFirstOrThrow();
      expect(row.source).toBe('portal');
      expect(row.created_by).toMatch(/^pkey_/);

      while ((await h.gateway.delivery.drainOnce()) > 0);
      const event = hub.events().find((e) => e.type === 'warranty_claim.created' && (e.data as Json).claim_number === body.claim_number);
      expect(event?.data).toMatchObject({ claim_number: body.claim_number, status: 'submitted', dealer: 'Springfield Tire', contact_email: 'driver@example.com' });
    });

    it('needs only description, customer_ref and contact_email', async () => {
      const res = await call('/api/portal/v1/warranty-claims', { method: 'POST', payload: { description: 'Slow leak', customer_ref: 'INV-3', contact_email: 'a@b.example' } });
      expect(res.statusCode, res.body).toBe(201);
    });

    it.each([
      ['no customer_ref', { customer_ref: undefined }, 'customer_ref'],
      ['a blank customer_ref', { customer_ref: '   ' }, 'customer_ref'],
      ['a customer_ref over 128 characters', { customer_ref: 'x'.repeat(129) }, 'customer_ref'],
      ['no contact_email', { contact_email: undefined }, 'contact_email'],
      ['a contact_email that is no address', { contact_email: 'driver at example' }, 'contact_email'],
      ['a contact_email over 254 characters', { contact_email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.example` }, 'contact_email'],
      ['a blank description', { description: ' \n ' }, 'description'],
      ['a description over 4000 characters', { description: 'x'.repeat(4001) }, 'description'],
      ['an sku with a space', { sku: 'PILOT 225' }, 'sku'],
      ['an sku over 64 characters', { sku: 'S'.repeat(65) }, 'sku'],
      ['a quantity of 0', { quantity: 0 }, 'quantity'],
      ['a fractional quantity', { quantity: 1.5 }, 'quantity'],
      ['a quantity over 1000000', { quantity: 1_000_001 }, 'quantity'],
      ['a dot_number with punctuation', { dot_number: 'DOT-U2LL' }, 'dot_number'],
      ['a dot_number dated in the future', { dot_number: 'DOT U2LL LMLR 5199' }, 'dot_number'],
      ['an unknown field', { price: 10 }, 'price'],
      ['a null sku', { sku: null }, 'sku'],
    ])('refuses %s with 400 naming the field, and files nothing', async (_label, fields, path) => {
      const before = await h.gateway.database.db.selectFrom('warranty_claims').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      const body = expectError(await call('/api/portal/v1/warranty-claims', { method: 'POST', payload: JSON.parse(JSON.stringify(claim(fields))) as Json }), 400, 'invalid_input');
      expect(body.details).toEqual([expect.objectContaining({ path, message: expect.any(String) as string })]);
      const after = await h.gateway.database.db.selectFrom('warranty_claims').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    });

    it('refuses an sku outside the catalog with 422 unknown_sku naming the field, and files nothing', async () => {
      const before = await h.gateway.database.db.selectFrom('warranty_claims').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      const body = expectError(await call('/api/portal/v1/warranty-claims', { method: 'POST', payload: JSON.parse(JSON.stringify(claim({ sku: 'NOPE-1' }))) as Json }), 422, 'unknown_sku');
      expect(body.param).toBe('sku');
      const after = await h.gateway.database.db.selectFrom('warranty_claims').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    });

    it('refuses a body that is not JSON, or none', async () => {
      expectError(await portalRequest(h, { method: 'POST', url: '/api/portal/v1/warranty-claims', key, payload: '{"description":' }), 400, 'invalid_input');
      expectError(await portalRequest(h, { method: 'POST', url: '/api/portal/v1/warranty-claims', key, payload: '[]' }), 400, 'invalid_input');
      expectError(await portalRequest(h, { method: 'POST', url: '/api/portal/v1/warranty-claims', key, payload: 'x', headers: { 'content-type': 'text/plain' } }), 415);
    });
  });

  describe('GET /api/portal/v1/warranty-claims/:claim_number', () => {
    it('answers number and status only with the customer_ref the claim was filed with', async () => {
      const filed = await fileClaim({ customer_ref: 'INV-4004' });
      const res = await call(`/api/portal/v1/warranty-claims/${filed.claim_number.toLowerCase()}?customer_ref=INV-4004`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ ok: true, claim_number: filed.claim_number, status: 'submitted' });
      const spaced = await call(`/api/portal/v1/warranty-claims/${filed.claim_number}?customer_ref=%20INV-4004%20`);
      expect(spaced.statusCode).toBe(200);
    });

    it('gives a wrong reference the very answer of a claim that does not exist', async () => {
      const filed = await fileClaim({ customer_ref: 'INV-5005' });
      const number = filed.claim_number;
      const missing = `WC-${String(Number(number.slice(3)) + 500).padStart(6, '0')}`;
      const wrongRef = await call(`/api/portal/v1/warranty-claims/${number}?customer_ref=INV-5006`);
      const noClaim = await call(`/api/portal/v1/warranty-claims/${missing}?customer_ref=INV-5005`);
      const strip = (res: { body: string; statusCode: number }) => ({ status: res.statusCode, body: res.body.replace(/"request_id":"[^"]*"/, '') });
      expectError(wrongRef, 404, 'not_found');
      // Only the number asked for differs: put the same one in both to compare the rest byte for byte.
      expect(strip(wrongRef).body.replace(number, 'N')).toBe(strip(noClaim).body.replace(missing, 'N'));
      expect(strip(wrongRef).status).toBe(strip(noClaim).status);
      const sameNumber = await call(`/api/portal/v1/warranty-claims/${missing}?customer_ref=INV-5006`);
      expect(strip(sameNumber)).toEqual(strip(noClaim));
    });

    it("is 404 for a claim filed with an API key, by another dealer, or in another org, whatever the reference", async () => {
      const apiKey = (await h.key('acme', 'warranty:write')).key;
      const viaApi = await h.request({ method: 'POST', url: '/v1/warranty-claims', payload: { description: 'API claim', customer_ref: 'INV-6006' }, key: apiKey });
      const apiNumber = viaApi.json<{ claim: { claim_number: string } }>().claim.claim_number;
      expectError(await call(`/api/portal/v1/warranty-claims/${apiNumber}?customer_ref=INV-6006`), 404, 'not_found');
      const otherDealer = await fileClaim({ customer_ref: 'INV-7007' }, otherDealerKey);
      expectError(await call(`/api/portal/v1/warranty-claims/${otherDealer.claim_number}?customer_ref=INV-7007`), 404, 'not_found');
      expect((await call(`/api/portal/v1/warranty-claims/${otherDealer.claim_number}?customer_ref=INV-7007`, { as: otherDealerKey })).statusCode).toBe(200);
      const stranger = await fileClaim({ customer_ref: 'INV-8008', sku: 'PILOT-225' }, strangerKey);
      const same = await call(`/api/portal/v1/warranty-claims/${stranger.claim_number}?customer_ref=INV-8008`);
      // The number may exist in acme too (numbers are per org); only acme's claim with this reference would answer.
      expect(same.statusCode).toBe(404);
    });

    it('needs customer_ref; a malformed number is the same 404', async () => {
      const filed = await fileClaim({ customer_ref: 'INV-9009' });
      const body = expectError(await call(`/api/portal/v1/warranty-claims/${filed.claim_number}`), 400, 'invalid_input');
      expect(body.details).toEqual([{ path: 'customer_ref', message: expect.any(String) as string }]);
      expectError(await call(`/api/portal/v1/warranty-claims/${filed.claim_number}?customer_ref=`), 400, 'invalid_input');
      const odd = expectError(await call('/api/portal/v1/warranty-claims/not-a-number?customer_ref=INV-9009'), 404, 'not_found');
      expect(odd.error).toBe('warranty claim not-a-number not found');
    });
  });

  it('answers any claim body, SKU list or claim lookup below 500, in the envelope', async () => {
    const url = (base: string, value: string) => `${base}${encodeURIComponent(value)}`;
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.string({ maxLength: 300 }), fc.string({ maxLength: 40 }), async (body, skus, ref) => {
        const got = [
          await call('/api/portal/v1/warranty-claims', { method: 'POST', payload: JSON.stringify(body) }),
          await call(url('/api/portal/v1/availability?skus=', skus)),
          await call(url(`/api/portal/v1/warranty-claims/${encodeURIComponent(ref) || 'x'}?customer_ref=`, ref)),
        ];
        for (const res of got) {
          expect(res.statusCode, res.body).toBeLessThan(500);
          expect(typeof res.json<{ ok: unknown }>().ok).toBe('boolean');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('never answers a quantity, bin or price field, in any answer above (every field, at any depth)', () => {
    expect(answers.length).toBeGreaterThan(30);
    for (const { label, body } of answers) {
      const leaks = fieldPaths(body).filter((path) => FORBIDDEN.test(path.split('.').pop() ?? ''));
      expect(leaks, label).toEqual([]);
    }
  });
});
