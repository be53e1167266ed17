import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { routeTable } from '../../support/routes.js';

/** Values that stand in for path parameters: ordinary, missing-looking, hostile and oversized. */
const paramValue = fc.oneof(
  fc.constantFrom('x', 'NOPE-1', '%00', '..%2F..', '%E2%82%AC', 'a'.repeat(300), '0', '-1', 'ord_00000000000000000000000000', 'WC-000001'),
  fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent),
);

const body = fc.oneof(
  fc.anything({ maxDepth: 3 }),
  fc.record({ rows: fc.anything({ maxDepth: 2 }), lines: fc.anything({ maxDepth: 2 }), status: fc.anything() }, { requiredKeys: [] }),
  fc.string(),
);

const query = fc.dictionary(
  fc.constantFrom('limit', 'cursor', 'status', 'q', 'direction', 'type', 'partner', 'make', 'bogus'),
  fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('-1', '0', '1e9', 'NaN', '[]', '%')),
  { maxKeys: 3 },
);

/** Every route, fed random paths, queries and bodies by a key holding every scope: never a 5xx, always the envelope. */
describe.each(dialects)('no route answers bad input with a 5xx (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    key = (await h.key('fuzz-org', 'all,objects:fitments:read,objects:fitments:write')).key;
  });
  afterAll(async () => h.close());

  it('refuses the NUL character in paths, queries and bodies with a 400 (PostgreSQL text cannot hold it)', async () => {
    const bodyRes = await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku: 'NUL-1', name: 'a\u0000b' } });
    expect(bodyRes.statusCode).toBe(400);
    expect(bodyRes.json<{ error: string }>().error).toBe('body.name: the NUL character (U+0000) is not allowed');
    expect((await h.request({ method: 'GET', url: '/v1/edi/messages/msg%00x', key })).statusCode).toBe(400);
    expect((await h.request({ method: 'GET', url: '/v1/products?q=a%00', key })).statusCode).toBe(400);
  });

  it('every /v1 and /mcp route', async () => {
    const routes = routeTable(h.app).filter((r) => r.includes(' /v1') || r.includes(' /mcp'));
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      const [method = 'GET', pattern = '/'] = route.split(' ');
      await fc.assert(
        fc.asyncProperty(fc.array(paramValue, { minLength: 3, maxLength: 3 }), query, body, fc.boolean(), async (params, q, payload, asText) => {
          let i = 0;
          const path = pattern.replace(/:[A-Za-z]+/g, () => params[i++] ?? 'x');
          const search = new URLSearchParams(q).toString();
          const hasBody = method !== 'GET' && method !== 'DELETE';
          const res = await h.request({
            method,
            url: search ? `${path}?${search}` : path,
            key,
            ...(hasBody
              ? { payload: asText ? String(JSON.stringify(payload) ?? '') : JSON.stringify(payload ?? null), headers: { 'content-type': asText ? 'text/plain' : 'application/json' } }
              : {}),
          });
          expect(res.statusCode, `${route} -> ${res.statusCode} ${res.body.slice(0, 300)}`).toBeLessThan(500);
          if (res.statusCode >= 400 && !route.includes('/mcp')) {
            const envelope = res.json<{ ok: boolean; status: number }>();
            expect(envelope.ok, `${route} ${path} -> ${res.body.slice(0, 200)}`).toBe(false);
            expect(envelope.status).toBe(res.statusCode);
          }
        }),
        { numRuns: 60 },
      );
    }
  });
});
