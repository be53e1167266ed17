import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTAL_ORIGIN, portalKeyOf, seedOrg } from '../operations/fixtures.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../support/harness.js';

const MCP = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

/** The headers a client reads to act on (the rest are transport or security hygiene). */
const SPEC_HEADERS = ['x-request-id', 'ratelimit-policy', 'ratelimit', 'retry-after', 'allow', 'www-authenticate', 'idempotent-replayed'];

interface OpenApiDoc {
  paths: Record<string, Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
}

/** Lower-cased header names the document gives the answer to method + url with this status; undefined when it has no such route. */
function documentedHeaders(doc: OpenApiDoc, method: string, url: string, status: number): Set<string> | undefined {
  const path = url.split('?')[0] ?? url;
  const template = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
  const op = template === undefined ? undefined : doc.paths[template]?.[method.toLowerCase()];
  const response = op?.responses?.[String(status)];
  return response === undefined ? undefined : new Set(Object.keys(response.headers ?? {}).map((n) => n.toLowerCase()));
}

/**
 * The response headers every kind of route sends, on success and error, with a key and without: no framework banner,
 * `nosniff` everywhere, and `no-store` on everything but the files meant to be cached.
 */
describe.each(dialects)('security headers on every kind of route (%s)', (dialect) => {
  let h: Harness;
  let apiKey: string;
  let portalKey: string;
  let noScopeKey: string;
  let otherOrgKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    apiKey = await seedOrg(h, 'owner');
    otherOrgKey = await seedOrg(h, 'stranger');
    noScopeKey = (await h.key('owner', 'orders:read')).key;
    portalKey = await portalKeyOf(h, 'owner');
  });
  afterAll(() => h.close());

  const portal = () => ({ 'x-portal-key': portalKey, origin: PORTAL_ORIGIN });
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  /** [what, request, the status it must get]: success and error of each door. */
  const cases = (): [string, InjectOptions, number][] => [
    ['/v1 success', { method: 'GET', url: '/v1/products', headers: bearer(apiKey) }, 200],
    // Keyed: a second run of the cases gets the replay, with its own header.
    ['/v1 write success', { method: 'POST', url: '/v1/products', headers: { ...bearer(apiKey), 'idempotency-key': 'hdr-1' }, payload: { sku: 'HDR-1', name: 'Header tire', stock_qty: 1 } }, 201],
    ['/v1 without a key', { method: 'GET', url: '/v1/products' }, 401],
    ['/v1 without the scope', { method: 'GET', url: '/v1/products', headers: bearer(noScopeKey) }, 403],
    ["/v1 another org's record", { method: 'GET', url: '/v1/products/HDR-1', headers: bearer(otherOrgKey) }, 404],
    ['/v1 bad input', { method: 'POST', url: '/v1/products', headers: bearer(apiKey), payload: { sku: 5 } }, 400],
    ['/v1 wrong content type', { method: 'POST', url: '/v1/products', headers: { ...bearer(apiKey), 'content-type': 'text/plain' }, payload: 'x' }, 415],
    ['/mcp success', { method: 'POST', url: '/mcp', headers: { ...MCP, ...bearer(apiKey) }, payload: toolsList }, 200],
    ['/mcp without a key', { method: 'POST', url: '/mcp', headers: MCP, payload: toolsList }, 401],
    ['/mcp tool error', { method: 'POST', url: '/mcp', headers: { ...MCP, ...bearer(noScopeKey) }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'products_list', arguments: {} } } }, 200],
    ['portal success', { method: 'GET', url: '/api/portal/v1/products', headers: portal() }, 200],
    ['portal without a key', { method: 'GET', url: '/api/portal/v1/products', headers: { origin: PORTAL_ORIGIN } }, 401],
    ['portal preflight', { method: 'OPTIONS', url: '/api/portal/v1/products', headers: { origin: PORTAL_ORIGIN, 'access-control-request-method': 'GET' } }, 204],
    ['operator success', { method: 'GET', url: '/admin/v1/portal-keys', headers: bearer(HARNESS_ADMIN_TOKEN) }, 200],
    ['operator without the token', { method: 'GET', url: '/admin/v1/portal-keys', headers: bearer(apiKey) }, 401],
    ['public bad input', { method: 'POST', url: '/connect', headers: { 'content-type': 'application/json' }, payload: {} }, 400],
    ['OAuth callback page', { method: 'GET', url: '/connect/oauth/callback?state=nope&code=x' }, 400],
    ['healthz', { method: 'GET', url: '/healthz' }, 200],
    ['OpenAPI document', { method: 'GET', url: '/openapi.json' }, 200],
    ['unknown route', { method: 'GET', url: '/v1/nothing-here', headers: bearer(apiKey) }, 404],
    ['wrong method', { method: 'DELETE', url: '/v1/products', headers: bearer(apiKey) }, 405],
  ];

  it('sends nosniff and no-store and no x-powered-by on every route kind, success and error', async () => {
    const problems: string[] = [];
    for (const [what, request, status] of cases()) {
      const res = await h.request({ ...request, remoteAddress: '10.91.0.1' });
      if (res.statusCode !== status) problems.push(`${what}: status ${res.statusCode} (wanted ${status}): ${res.body.slice(0, 200)}`);
      if (res.headers['x-powered-by'] !== undefined) problems.push(`${what}: x-powered-by ${String(res.headers['x-powered-by'])}`);
      if (res.headers['x-content-type-options'] !== 'nosniff') problems.push(`${what}: x-content-type-options ${String(res.headers['x-content-type-options'])}`);
      if (res.headers['cache-control'] !== 'no-store') problems.push(`${what}: cache-control ${String(res.headers['cache-control'])}`);
    }
    expect(problems).toEqual([]);
  });

  it('sends X-Request-Id on every answer, Allow on every 405, and documents on each status every header it sends', async () => {
    const doc = JSON.parse((await h.request({ method: 'GET', url: '/openapi.json' })).body) as OpenApiDoc;
    const oneAMinute = (await h.key('owner', 'products:read', { rateLimit: 1 })).key;
    const more: [string, InjectOptions, number][] = [
      ['/v1 rate limited', { method: 'GET', url: '/v1/products', headers: bearer(oneAMinute) }, 200],
      ['/v1 rate limited', { method: 'GET', url: '/v1/products', headers: bearer(oneAMinute) }, 429],
      ['/mcp wrong method', { method: 'GET', url: '/mcp', headers: bearer(apiKey) }, 405],
    ];
    const problems: string[] = [];
    for (const [what, request, status] of [...cases(), ...more]) {
      const res = await h.request({ ...request, remoteAddress: '10.91.0.2' });
      if (res.statusCode !== status) problems.push(`${what}: status ${res.statusCode} (wanted ${status})`);
      if (typeof res.headers['x-request-id'] !== 'string' || res.headers['x-request-id'] === '') problems.push(`${what}: no x-request-id`);
      if (res.statusCode === 405 && !res.headers.allow) problems.push(`${what}: 405 without allow`);
      const documented = documentedHeaders(doc, String(request.method), typeof request.url === 'string' ? request.url : '', res.statusCode);
      if (documented === undefined) continue;
      for (const name of SPEC_HEADERS) {
        if (res.headers[name] !== undefined && !documented.has(name)) problems.push(`${what}: ${res.statusCode} sends ${name}, undocumented`);
      }
      if (!documented.has('x-request-id')) problems.push(`${what}: ${res.statusCode} documents no x-request-id`);
    }
    expect(problems).toEqual([]);
  });

  it('lets the widget script keep its own caching, still with nosniff', async () => {
    const res = await h.request({ method: 'GET', url: '/portal/widget.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('sends them on a real listener too (what a client sees past inject)', async () => {
    // h.close() closes the listener.
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    for (const [url, init] of [
        ['/v1/products', { headers: bearer(apiKey) }],
        ['/v1/products', {}],
      ] as [string, RequestInit][]) {
        const res = await fetch(`${base}${url}`, init);
        await res.text();
        expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
        expect(res.headers.get('cache-control'), url).toBe('no-store');
        expect(res.headers.get('x-powered-by'), url).toBeNull();
    }
  });
});
