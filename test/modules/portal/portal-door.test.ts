import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { DEALER_ORIGIN, freshIp, portalKey, portalRequest, seedCatalog } from './portal-support.js';

const SECOND_ORIGIN = 'http://localhost:5173';
const OTHER_DEALER_ORIGIN = 'https://other-dealer.example';
const PRODUCTS = '/api/portal/v1/products';

describe.each(dialects)('the portal door (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let revokedKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedCatalog(h, 'acme');
    key = (await portalKey(h, 'acme', { origins: [DEALER_ORIGIN, SECOND_ORIGIN] })).key;
    await portalKey(h, 'acme', { dealer: 'Other dealer', origins: [OTHER_DEALER_ORIGIN] });
    const revoked = await portalKey(h, 'acme', { origins: ['https://gone.example'] });
    revokedKey = revoked.key;
    await h.gateway.services.portalKeys.revoke(revoked.id);
  });
  afterAll(() => h.close());

  const preflight = (origin: string | null, url = PRODUCTS) =>
    portalRequest(h, { method: 'OPTIONS', url, origin, headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-portal-key' } });

  describe('CORS preflight (no key: answered for the origins of any active key)', () => {
    it("grants a key's origin exactly, with the methods of the path and the X-Portal-Key header", async () => {
      for (const origin of [DEALER_ORIGIN, SECOND_ORIGIN, OTHER_DEALER_ORIGIN]) {
        const res = await preflight(origin);
        expect(res.statusCode, origin).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(res.headers['access-control-allow-methods']).toBe('GET');
        expect(String(res.headers['access-control-allow-headers'])).toContain('x-portal-key');
        expect(String(res.headers.vary)).toMatch(/origin/i);
      }
      expect((await preflight(DEALER_ORIGIN, '/api/portal/v1/warranty-claims')).headers['access-control-allow-methods']).toBe('POST');
    });

    it('refuses an origin no active key lists (a revoked key\'s, a wildcard, a look-alike) with 403 and no grant', async () => {
      for (const origin of ['https://gone.example', 'https://evil.example', '*', 'null', 'https://shop.dealer.example.evil.example', 'http://shop.dealer.example']) {
        const res = await preflight(origin);
        expectError(res, 403, 'forbidden_origin');
        expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
      }
    });

    it('answers a preflight without an Origin with Allow and no grant', async () => {
      const res = await preflight(null);
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('requests', () => {
    it("serves a listed origin and grants it exactly, with Vary: Origin", async () => {
      for (const origin of [DEALER_ORIGIN, SECOND_ORIGIN]) {
        const res = await portalRequest(h, { url: PRODUCTS, key, origin });
        expect(res.statusCode, res.body).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(String(res.headers['access-control-expose-headers'])).toContain('retry-after');
        expect(String(res.headers.vary)).toMatch(/origin/i);
      }
    });

    it("refuses an origin not on the key's list (even one another key lists) with 403 and no grant", async () => {
      for (const origin of [OTHER_DEALER_ORIGIN, 'https://evil.example', 'null', 'https://shop.dealer.example:8443']) {
        const res = await portalRequest(h, { url: PRODUCTS, key, origin });
        expectError(res, 403, 'forbidden_origin');
        expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
        expect(res.body).not.toContain('PILOT');
      }
    });

    it('refuses a browser request without an Origin; a server-side client without one is served', async () => {
      for (const headers of [{ 'sec-fetch-mode': 'cors' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
        const res = await portalRequest(h, { url: PRODUCTS, key, origin: null, headers });
        expect(expectError(res, 403, 'forbidden_origin').error).toMatch(/must send its Origin/);
      }
      const server = await portalRequest(h, { url: PRODUCTS, key, origin: null });
      expect(server.statusCode, server.body).toBe(200);
      expect(server.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it("a same-origin GET (no Origin, Sec-Fetch-Site: same-origin) comes from the gateway's own origin: served only if the key lists it", async () => {
    const listed = await portalRequest(h, { url: PRODUCTS, key, origin: null, headers: { host: 'localhost:5173', 'sec-fetch-site': 'same-origin' } });
    expect(listed.statusCode, listed.body).toBe(200);
    const unlisted = await portalRequest(h, { url: PRODUCTS, key, origin: null, headers: { host: 'gateway.example', 'sec-fetch-site': 'same-origin' } });
    expectError(unlisted, 403, 'forbidden_origin');
    expect(unlisted.body).not.toContain('PILOT');
  });

  describe('the key', () => {
    it('401 without a key, or with a malformed, unknown or revoked one', async () => {
      expect(expectError(await portalRequest(h, { url: PRODUCTS }), 401, 'unauthorized').error).toMatch(/missing portal key/);
      for (const bad of ['nope', `pk_portal_dealer_${'x'.repeat(31)}`, `pk_portal_dealer_${'x'.repeat(32)}`, `trk_live_${'x'.repeat(32)}`]) {
        expect(expectError(await portalRequest(h, { url: PRODUCTS, key: bad }), 401, 'unauthorized').error, bad).toBe('invalid portal key');
      }
      expect(expectError(await portalRequest(h, { url: PRODUCTS, key: revokedKey, origin: 'https://gone.example' }), 401, 'unauthorized').error).toBe('portal key has been revoked');
    });

    it("lets the page read a 401 when its origin is on some active key's list", async () => {
      const listed = await portalRequest(h, { url: PRODUCTS, key: 'nope', origin: OTHER_DEALER_ORIGIN });
      expectError(listed, 401, 'unauthorized');
      expect(listed.headers['access-control-allow-origin']).toBe(OTHER_DEALER_ORIGIN);
      const unlisted = await portalRequest(h, { url: PRODUCTS, key: 'nope', origin: 'https://evil.example' });
      expectError(unlisted, 401, 'unauthorized');
      expect(unlisted.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('a key revoked while cached stops working within the cache TTL', async () => {
      const created = await portalKey(h, 'acme');
      expect((await portalRequest(h, { url: PRODUCTS, key: created.key })).statusCode).toBe(200);
      await h.gateway.services.portalKeys.revoke(created.id);
      h.clock.advance(h.config.KEY_CACHE_TTL_MS);
      expectError(await portalRequest(h, { url: PRODUCTS, key: created.key }), 401, 'unauthorized');
    });

    it('refuses an API key on the portal, and a portal key on /v1 and /mcp, saying where each works', async () => {
      const apiKey = (await h.key('acme', 'all')).key;
      const onPortal = await portalRequest(h, { url: PRODUCTS, headers: { authorization: `Bearer ${apiKey}` } });
      expect(expectError(onPortal, 401, 'unauthorized').error).toMatch(/API keys do not work on \/api\/portal\/v1/);
      const mcpHeaders = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
      const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
      const refused = [
        await h.request({ method: 'GET', url: '/v1/products', headers: { 'x-portal-key': key } }),
        await h.request({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${key}` } }),
        await h.request({ method: 'POST', url: '/mcp', headers: { ...mcpHeaders, 'x-portal-key': key }, payload: rpc }),
        await h.request({ method: 'POST', url: '/mcp', headers: { ...mcpHeaders, authorization: `Bearer ${key}` }, payload: rpc }),
      ];
      for (const res of refused) expect(expectError(res, 401, 'unauthorized').error).toMatch(/portal keys work only on \/api\/portal\/v1/);
    });
  });

  describe('rate limits', () => {
    it("per key: every client together gets the key's requests per minute, then 429 with Retry-After", async () => {
      const limited = (await portalKey(h, 'acme', { rateLimit: 3 })).key;
      for (let i = 0; i < 3; i++) expect((await portalRequest(h, { url: PRODUCTS, key: limited, ip: freshIp() })).statusCode).toBe(200);
      const refused = await portalRequest(h, { url: PRODUCTS, key: limited, ip: freshIp() });
      expect(expectError(refused, 429, 'rate_limited').error).toBe('rate limit of 3 requests per minute exceeded');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['access-control-allow-origin']).toBe(DEALER_ORIGIN);
      h.clock.advance(2 * 60_000);
      expect((await portalRequest(h, { url: PRODUCTS, key: limited })).statusCode).toBe(200);
    });

    it("per client IP: one address gets the key's per-IP requests per minute; another still gets in", async () => {
      const limited = (await portalKey(h, 'acme', { ipRateLimit: 2 })).key;
      const ip = freshIp();
      const lookup = '/api/portal/v1/warranty-claims/WC-000001?customer_ref=guess';
      for (let i = 0; i < 2; i++) expect((await portalRequest(h, { url: lookup, key: limited, ip })).statusCode).toBe(404);
      const refused = await portalRequest(h, { url: lookup, key: limited, ip });
      expect(expectError(refused, 429, 'rate_limited').error).toBe('rate limit of 2 requests per minute per client exceeded');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await portalRequest(h, { url: PRODUCTS, key: limited, ip: freshIp() })).statusCode).toBe(200);
    });
  });
});
