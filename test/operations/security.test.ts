import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { audienceOf, type Operation } from '../../src/platform/operations/operation.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../support/harness.js';
import { type Call, callMcp, callRest, listTools, mcpArgsOf, restRequest, restUrl } from '../support/operations.js';
import { FIXTURES, PORTAL_FIXTURES, PORTAL_ORIGIN, portalKeyOf, seedOrg } from './fixtures.js';
import { stalledUpload } from '../support/raw-http.js';

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
    // API-key operations; the operator's and the public ones have their own door checks below.
    operations = h.gateway.operations.map((e) => e.operation).filter((op) => audienceOf(op) === 'api');
    await seedOrg(h, 'owner');
    otherOrgKey = await seedOrg(h, 'stranger');
  });
  afterAll(() => h.close());

  const scopeOf = (op: Operation, call: Call) => call.scope ?? (typeof op.scope === 'string' ? op.scope : '');
  /** A key of the owner org with every scope but the one the operation needs. */
  const keyWithout = async (scope: string) => {
    const all = [...h.gateway.scopes.static, 'objects:fitments:read', 'objects:fitments:write'];
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
      expect(rest.payload.param, op.name).toBe('zz_unknown');
      expect(mcp.payload.param, op.name).toBe('zz_unknown');
      expect(mcp.text, op.name).toMatch(/^invalid_input: invalid arguments: /);
    }
  });

  it('a repeated JSON key -> 400 naming it, on every operation with a JSON body', async () => {
    const key = await seedOrg(h, 'owner');
    for (const op of operations.filter((o) => o.body !== undefined)) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const body = JSON.stringify(call.body ?? {});
      const repeated = `${body.slice(0, -1)}${body.length > 2 ? ',' : ''}"zz_twice":1,"zz_twice":2}`;
      const res = await h.request({ ...restRequest(op, call), payload: repeated, key });
      expect(res.statusCode, `${op.name}: ${res.body}`).toBe(400);
      expect(res.json(), op.name).toMatchObject({ code: 'invalid_input', param: 'zz_twice', doc_url: 'docs/errors.md#invalid_input' });
    }
  });

  it('input nested 3,000 deep with an idempotency key -> the same 400 as without, never a 500, on REST and MCP', async () => {
    const key = await seedOrg(h, 'owner');
    let deep: unknown = 1;
    for (let i = 0; i < 3000; i++) deep = [deep];
    for (const op of operations.filter((o) => o.unit !== 'read' && o.body !== undefined)) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const nested = { ...call, body: { ...(call.body as object), zz_deep: deep } };
      const plain = await callRest(h, op, nested, key);
      const keyed = await h.request({ ...restRequest(op, nested, { 'idempotency-key': `deep-${op.name}` }), key });
      expect(plain.status, `${op.name}: ${JSON.stringify(plain.payload)}`).toBe(400);
      expect(keyed.statusCode, `${op.name}: ${keyed.body}`).toBe(400);
      expect(keyed.json<{ error: string }>().error, op.name).toBe(plain.payload.error);
      const args = op.mcp ? { ...call.mcpArgs, zz_deep: deep } : { ...mcpArgsOf(op, call), zz_deep: deep };
      const mcp = await callMcp(h, op.name, { ...args, idempotency_key: `deep-mcp-${op.name}` }, key);
      expect(mcp.status, `${op.name} MCP: ${mcp.text}`).toBe(400);
    }
  });

  it('a tag character in any field whose schema has a character pattern -> 400 naming the field, on REST and MCP alike', async () => {
    // Tag characters (U+E0000-E007F) spell hidden ASCII; every identifier and text field refuses them.
    const TAGS = '\u{e0069}\u{e0067}';
    const key = await seedOrg(h, 'owner');
    const patterned = (schema: z.ZodType | undefined): string[] => {
      if (schema === undefined) return [];
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { pattern?: string; anyOf?: { pattern?: string }[] }> };
      return Object.entries(json.properties ?? {}).filter(([, p]) => p.pattern !== undefined || p.anyOf?.some((b) => b.pattern !== undefined)).map(([name]) => name);
    };
    let checked = 0;
    for (const op of operations.filter((o) => !o.mcp && !o.rawBody)) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const body = (call.body ?? {}) as Record<string, unknown>;
      const fields = [
        ...patterned(op.params).filter((f) => typeof call.params?.[f] === 'string').map((f) => ({ f, tagged: { ...call, params: { ...call.params, [f]: `${call.params?.[f] ?? ''}${TAGS}` } } })),
        ...patterned(op.body).filter((f) => typeof body[f] === 'string').map((f) => ({ f, tagged: { ...call, body: { ...body, [f]: `${String(body[f])}${TAGS}` } } })),
      ];
      for (const { f, tagged } of fields) {
        checked += 1;
        const rest = await callRest(h, op, tagged, key);
        expect(rest.status, `${op.name} ${f} REST: ${JSON.stringify(rest.payload)}`).toBe(400);
        expect(rest.payload.code).toBe('invalid_input');
        expect(rest.payload.details, `${op.name} ${f}`).toContainEqual(expect.objectContaining({ path: f }));
        const mcp = await callMcp(h, op.name, mcpArgsOf(op, tagged), key);
        expect(mcp.status, `${op.name} ${f} MCP: ${mcp.text}`).toBe(400);
        expect(mcp.payload.details, `${op.name} ${f}`).toEqual(rest.payload.details);
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('slow bodies: a refusal (no key 401, missing scope 403) answered while the body still arrives closes the connection', async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as { port: number };
    const uploads = operations.filter((op) => (op.body || op.rawBody) && !op.absent?.rest);
    expect(uploads.length).toBeGreaterThan(5);
    for (const op of uploads) {
      const call = await FIXTURES[op.name]?.(h, 'owner');
      if (!call) continue;
      const request = restRequest(op, call);
      const body = typeof request.payload === 'string' ? request.payload : JSON.stringify(request.payload ?? {});
      const headers = request.headers as Record<string, string>;
      // A rule scope (objects:<key>:write) too: the object's definition is read before the body.
      const needed = scopeOf(op, call);
      expect(needed, `${op.name}: the fixture names the scope its rule asks`).not.toBe('');
      const refusals: [number, string | undefined][] = [[401, undefined], [403, `Bearer ${await keyWithout(needed)}`]];
      for (const [status, authorization] of refusals) {
        const got = await stalledUpload(port, op.method, restUrl(op, call), { ...headers, ...(authorization ? { authorization } : {}) }, body);
        expect(got.map((a) => a.status), `${op.name} ${status}`).toEqual([status]);
        expect(got[0]?.headers.connection, `${op.name} ${status}`).toBe('close');
      }
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

/** The doors that take no API key, checked over every operation that uses them (so the next one is covered too). */
describe.each(dialects)('operator and public operations (%s)', (dialect) => {
  let h: Harness;
  let operator: Operation[];
  let open: Operation[];
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { CONNECT_ALLOWED_ORIGINS: 'https://listed.example' } });
    operator = h.gateway.operations.map((e) => e.operation).filter((op) => audienceOf(op) === 'operator');
    open = h.gateway.operations.map((e) => e.operation).filter((op) => audienceOf(op) === 'public');
    apiKey = await seedOrg(h, 'owner');
  });
  afterAll(() => h.close());
  const call = (op: Operation, headers: Record<string, string>, payload: unknown = {}, remoteAddress = '10.1.1.1') =>
    h.request({ method: op.method, url: op.path, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload), remoteAddress });

  it('has both kinds, and none of them is an MCP tool', async () => {
    expect(operator.length).toBeGreaterThan(0);
    expect(open.length).toBeGreaterThan(0);
    const tools = new Set((await listTools(h, apiKey)).map((t) => t.name));
    for (const op of [...operator, ...open]) expect(tools.has(op.name), op.name).toBe(false);
  });

  it('operator: only GATEWAY_ADMIN_TOKEN opens it (an API key with every scope is 401); without the token set it does not exist', async () => {
    for (const op of operator) {
      const refused: Record<string, string>[] = [{}, { authorization: `Bearer ${apiKey}` }, { authorization: 'Bearer not-the-admin-token-000' }, { authorization: HARNESS_ADMIN_TOKEN }];
      for (const headers of refused) {
        const res = await call(op, headers);
        expect(res.statusCode, `${op.name} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json<{ code: string }>().code).toBe('unauthorized');
        expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer\b/);
      }
      // Past the door, the operation's own answer: an empty JSON body is a 400 (a GET's body is not read, so it lists).
      expect((await call(op, { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` })).statusCode, op.name).toBe(op.method === 'GET' ? 200 : 400);
    }
    const closed = await startHarness(dialect, { env: { GATEWAY_ADMIN_TOKEN: undefined } });
    try {
      for (const op of operator) {
        const res = await closed.request({ method: op.method, url: op.path, headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, payload: {} });
        expect(res.statusCode, op.name).toBe(404);
      }
    } finally {
      await closed.close();
    }
  });

  it('public: no key needed; an unlisted origin or a browser without one is 403; a body over its cap is 413', async () => {
    for (const op of open) {
      expect((await call(op, {})).statusCode, `${op.name} without a key`).toBe(400);
      const refused: Record<string, string>[] = [{ origin: 'https://unlisted.example' }, { 'sec-fetch-site': 'cross-site' }];
      for (const headers of refused) {
        const res = await call(op, headers);
        expect(res.statusCode, `${op.name} ${JSON.stringify(headers)}`).toBe(403);
        expect(res.json<{ code: string }>().code).toBe('forbidden_origin');
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
      const listed = await call(op, { origin: 'https://listed.example' });
      expect(listed.headers['access-control-allow-origin']).toBe('https://listed.example');
      if (op.maxBodyBytes) expect((await call(op, {}, { pad: 'x'.repeat(op.maxBodyBytes) })).statusCode, op.name).toBe(413);
    }
  });

  it('slow bodies: an operator upload without the token (401), a public one from an unlisted origin (403), closes the connection', async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as { port: number };
    const cases: [Operation, Record<string, string>, number][] = [
      ...operator.filter((op) => op.body).map((op): [Operation, Record<string, string>, number] => [op, {}, 401]),
      ...open.filter((op) => op.body).map((op): [Operation, Record<string, string>, number] => [op, { origin: 'https://unlisted.example' }, 403]),
    ];
    expect(cases.some(([, , status]) => status === 403)).toBe(true);
    for (const [op, headers, status] of cases) {
      const got = await stalledUpload(port, op.method, op.path.replace(/:([a-z_]+)/g, 'x'), headers, JSON.stringify({ pad: 'x'.repeat(64) }));
      expect(got.map((a) => a.status), op.name).toEqual([status]);
      expect(got[0]?.headers.connection, op.name).toBe('close');
    }
  });

  it('public: its per-IP limit holds, then 429 with Retry-After', async () => {
    for (const [i, op] of open.entries()) {
      const ip = `10.2.3.${i + 1}`;
      const limit = op.perIpPerMinute ?? 0;
      for (let n = 0; n < limit; n++) expect((await call(op, {}, {}, ip)).statusCode, op.name).toBe(400);
      const limited = await call(op, {}, {}, ip);
      expect(limited.statusCode, op.name).toBe(429);
      expect(limited.headers['ratelimit-policy'], op.name).toBe(`"ip";q=${limit};w=60`);
      expect(limited.headers.ratelimit, op.name).toBe(`"ip";r=0;t=${String(limited.headers['retry-after'])}`);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});

/** The portal door (X-Portal-Key from a listed origin), checked over every portal operation. */
describe.each(dialects)('portal operations (%s)', (dialect) => {
  let h: Harness;
  let portal: Operation[];
  let key: string;
  let strangerKey: string;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    portal = h.gateway.operations.map((e) => e.operation).filter((op) => audienceOf(op) === 'portal');
    key = await portalKeyOf(h, 'owner');
    strangerKey = await portalKeyOf(h, 'stranger');
    apiKey = await seedOrg(h, 'owner');
  });
  afterAll(() => h.close());

  let ips = 0;
  const send = async (op: Operation, call: Call, headers: Record<string, string>, ip = `10.55.${Math.floor(++ips / 250) % 250}.${(ips % 250) + 1}`) => {
    const res = await h.request({ ...restRequest(op, call, headers), remoteAddress: ip });
    return { res, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  const fixtureOf = async (op: Operation): Promise<Call> => {
    const fixture = PORTAL_FIXTURES[op.name];
    if (!fixture) throw new Error(`${op.name} has no fixture in PORTAL_FIXTURES`);
    return fixture(h, 'owner');
  };
  const fromPage = { origin: PORTAL_ORIGIN };

  it('has a fixture for every portal operation, and none of them is an MCP tool', async () => {
    expect(portal.length).toBeGreaterThan(0);
    expect(portal.map((op) => op.name).filter((name) => !(name in PORTAL_FIXTURES))).toEqual([]);
    expect(Object.keys(PORTAL_FIXTURES).filter((name) => !portal.some((op) => op.name === name))).toEqual([]);
    const tools = new Set((await listTools(h, apiKey)).map((t) => t.name));
    for (const op of portal) expect(tools.has(op.name), op.name).toBe(false);
  });

  it('serves the key from its listed origin, granting that origin exactly', async () => {
    for (const op of portal) {
      const { res } = await send(op, await fixtureOf(op), { 'x-portal-key': key, ...fromPage });
      expect(res.statusCode, `${op.name}: ${res.body}`).toBeLessThan(300);
      expect(res.headers['access-control-allow-origin'], op.name).toBe(PORTAL_ORIGIN);
    }
  });

  it('no key, an unknown or revoked one, or an API key -> 401', async () => {
    const revoked = await h.gateway.services.portalKeys.create({ org: 'owner', dealer: 'Gone', origins: [PORTAL_ORIGIN] });
    await h.gateway.services.portalKeys.revoke(revoked.id);
    const refused: Record<string, string>[] = [{}, { 'x-portal-key': `pk_portal_dealer_${'x'.repeat(32)}` }, { 'x-portal-key': revoked.key }, { authorization: `Bearer ${apiKey}` }];
    for (const op of portal) {
      const call = await fixtureOf(op);
      for (const headers of refused) {
        const { res, body } = await send(op, call, { ...headers, ...fromPage });
        expect(res.statusCode, `${op.name} ${JSON.stringify(headers)}`).toBe(401);
        expect(body.code).toBe('unauthorized');
      }
    }
  });

  it("an origin not on the key's list, or a browser without one -> 403 with no CORS grant", async () => {
    for (const op of portal) {
      const call = await fixtureOf(op);
      for (const headers of [{ origin: 'https://unlisted.example' }, { 'sec-fetch-mode': 'cors' }] as Record<string, string>[]) {
        const { res, body } = await send(op, call, { 'x-portal-key': key, ...headers });
        expect(res.statusCode, `${op.name} ${JSON.stringify(headers)}`).toBe(403);
        expect(body.code).toBe('forbidden_origin');
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
  });

  it('slow bodies: a portal upload without a key (401) closes the connection', async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as { port: number };
    const uploads = portal.filter((op) => op.body);
    expect(uploads.length).toBeGreaterThan(0);
    for (const op of uploads) {
      const call = await fixtureOf(op);
      const request = restRequest(op, call, fromPage);
      const got = await stalledUpload(port, op.method, restUrl(op, call), request.headers as Record<string, string>, JSON.stringify(request.payload ?? {}));
      expect(got.map((a) => a.status), op.name).toEqual([401]);
      expect(got[0]?.headers.connection, op.name).toBe('close');
    }
  });

  it("another org's portal key finds nothing of this org's", async () => {
    for (const op of portal.filter((o) => o.params !== undefined)) {
      const { res, body } = await send(op, await fixtureOf(op), { 'x-portal-key': strangerKey, ...fromPage });
      expect(res.statusCode, `${op.name}: ${res.body}`).toBe(404);
      expect(body.code).toBe('not_found');
    }
  });

  it('an unknown field -> 400 invalid_input with details', async () => {
    for (const op of portal) {
      const call = await fixtureOf(op);
      const stray = op.body ? { ...call, body: { ...(call.body as object), zz_unknown: 1 } } : { ...call, query: { ...call.query, zz_unknown: '1' } };
      const { res, body } = await send(op, stray, { 'x-portal-key': key, ...fromPage });
      expect(res.statusCode, `${op.name}: ${res.body}`).toBe(400);
      expect(body.code).toBe('invalid_input');
      expect(Array.isArray(body.details), op.name).toBe(true);
    }
  });

  it("the key's per-IP limit holds on every operation, then 429 with Retry-After", async () => {
    const limited = (await h.gateway.services.portalKeys.create({ org: 'owner', dealer: 'Fixture dealer', origins: [PORTAL_ORIGIN], ip_rate_limit_per_minute: 1 })).key;
    for (const [i, op] of portal.entries()) {
      const ip = `10.56.0.${i + 1}`;
      const call = await fixtureOf(op);
      const first = (await send(op, call, { 'x-portal-key': limited, ...fromPage }, ip)).res;
      expect(first.statusCode, op.name).toBeLessThan(300);
      // Both policies, the client's and the key's, in one list each.
      expect(first.headers['ratelimit-policy'], op.name).toMatch(/^"ip";q=1;w=60, "key";q=\d+;w=60$/);
      expect(first.headers.ratelimit, op.name).toMatch(/^"ip";r=0;t=\d+, "key";r=\d+;t=\d+$/);
      const { res, body } = await send(op, call, { 'x-portal-key': limited, ...fromPage }, ip);
      expect(res.statusCode, op.name).toBe(429);
      expect(body.code).toBe('rate_limited');
      expect(res.headers.ratelimit, op.name).toBe(`"ip";r=0;t=${String(res.headers['retry-after'])}`);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('a portal key on any API operation, REST or MCP -> 401 saying where portal keys work', async () => {
    const apiOps = h.gateway.operations.map((e) => e.operation).filter((op) => audienceOf(op) === 'api' && !op.absent?.rest);
    for (const op of apiOps) {
      for (const headers of [{ 'x-portal-key': key }, { authorization: `Bearer ${key}` }] as Record<string, string>[]) {
        const { res, body } = await send(op, { params: {} }, headers);
        expect(res.statusCode, `${op.name} ${Object.keys(headers)[0] ?? ''}`).toBe(401);
        expect(String(body.error)).toMatch(/portal keys work only on \/api\/portal\/v1/);
      }
    }
    const mcp = await callMcp(h, 'products_list', {}, key);
    expect(mcp.status).toBe(401);
  });
});
