import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_IDS } from '../../../src/modules/telematics/providers/catalog.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../../support/harness.js';
import { callMcp, listTools } from '../../support/operations.js';

type Json = Record<string, unknown>;

/** A value inside parsed JSON by its path; undefined where the path leaves it. */
const dig = (value: unknown, ...path: (string | number)[]): unknown => path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);

/** The schema says what the server enforces, and text rules hold on every door: REST, MCP, the operator's and the public one. */
describe.each(dialects)('input rules through the doors (%s)', (dialect) => {
  let h: Harness;
  let key = '';
  let openapi: Json;
  const admin = (method: 'POST' | 'GET', url: string, payload?: unknown) =>
    h.request({ method, url, headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  const code = (res: { json<T>(): T }) => res.json<{ code: string }>().code;
  const message = (res: { json<T>(): T }) => res.json<{ error: string }>().error;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
    key = (await h.key('acme', 'products:read,products:write,orders:write,warranty:write')).key;
    openapi = (await h.request({ method: 'GET', url: '/openapi.json' })).json<Json>();
    const created = await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku: 'TIRE-1', name: 'Tire', stock_qty: 5 } });
    expect(created.statusCode, created.body).toBe(201);
  });
  afterAll(() => h.close());

  const bodySchema = (path: string, method: string): Json => {
    const schema = dig(openapi, 'paths', path, method, 'requestBody', 'content', 'application/json', 'schema') as Json;
    return typeof schema.$ref === 'string' ? (dig(openapi, 'components', 'schemas', schema.$ref.split('/').pop() ?? '') as Json) : schema;
  };

  describe('query strings', () => {
    it('a repeated parameter -> 400 that says so, not "received NaN"', async () => {
      const res = await h.request({ method: 'GET', url: '/v1/products?limit=1&limit=2', key });
      expect(res.statusCode).toBe(400);
      expect(code(res)).toBe('invalid_input');
      expect(message(res)).toBe('invalid query: limit: the parameter was repeated (2 times): send it once');
      expect(res.json<Json>().details).toEqual([{ path: 'limit', message: 'the parameter was repeated (2 times): send it once' }]);
    });

    it.each(['0x10', '1e1', '%205', '5%20', '', '+5', '5.', 'Infinity'])('limit=%s (not decimal) -> 400', async (value) => {
      const res = await h.request({ method: 'GET', url: `/v1/products?limit=${value}`, key });
      expect(res.statusCode, res.body).toBe(400);
      expect(message(res)).toMatch(/^invalid query: limit: must be a decimal number, such as 25 \(received ".*"\)$/);
    });

    it('a decimal limit is read as the integer it writes; a fraction is refused as not whole', async () => {
      expect((await h.request({ method: 'GET', url: '/v1/products?limit=007', key })).statusCode).toBe(200);
      const half = await h.request({ method: 'GET', url: '/v1/products?limit=1.5', key });
      expect(half.statusCode).toBe(400);
      expect(JSON.stringify(half.json<Json>().details)).toContain('"path":"limit"');
    });

    it('/healthz refuses an unknown query parameter like every route, and answers without one', async () => {
      const res = await h.request({ method: 'GET', url: '/healthz?verbose=1' });
      expect(res.statusCode).toBe(400);
      expect(code(res)).toBe('invalid_input');
      expect(message(res)).toContain('invalid query');
      expect((await h.request({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(dig(openapi, 'paths', '/healthz', 'get', 'responses', '400', 'description')).toMatch(/query parameter/);
    });
  });

  describe('MCP takes integers as integers', () => {
    it('limit "5" is refused, 5 is taken, and the tool listing says integer', async () => {
      const asText = await callMcp(h, 'products_list', { limit: '5' }, key);
      expect(asText.isError).toBe(true);
      expect(asText.payload).toMatchObject({ code: 'invalid_input' });
      expect(JSON.stringify(asText.payload.details)).toContain('"path":"limit"');
      const asNumber = await callMcp(h, 'products_list', { limit: 5 }, key);
      expect(asNumber.isError, asNumber.text).toBe(false);
      const tools = await listTools(h, key);
      expect(dig(tools.find((t) => t.name === 'products_list'), 'inputSchema', 'properties', 'limit', 'type')).toBe('integer');
      const parameters = dig(openapi, 'paths', '/v1/products', 'get', 'parameters') as Json[];
      expect(dig(parameters.find((p) => p.name === 'limit'), 'schema', 'type')).toBe('integer');
    });
  });

  describe('the schema lists what the server takes', () => {
    it('provider is an enum of the provider ids on POST /connect and on connect tokens; an unknown one is a 400', async () => {
      expect(PROVIDER_IDS).toHaveLength(21);
      expect(dig(bodySchema('/connect', 'post'), 'properties', 'provider', 'enum')).toEqual([...PROVIDER_IDS]);
      expect(dig(bodySchema('/admin/v1/connect-tokens', 'post'), 'properties', 'provider', 'enum')).toEqual([...PROVIDER_IDS]);
      const token = await admin('POST', '/admin/v1/connect-tokens', { org: 'acme', provider: 'not_a_vendor' });
      expect(token.statusCode).toBe(400);
      expect(message(token)).toContain("unknown provider 'not_a_vendor'");
      const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
      const connect = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'not_a_vendor' } });
      expect(connect.statusCode).toBe(400);
      expect(code(connect)).toBe('invalid_input');
    });

    it('the org slug pattern is in the schema and enforced on every field that names an org', async () => {
      const pattern = dig(bodySchema('/admin/v1/orgs', 'post'), 'properties', 'slug', 'pattern') as string;
      expect(new RegExp(pattern).test('acme-2')).toBe(true);
      for (const bad of ['Acme', '-acme', 'a b', 'a'.repeat(64)]) expect(new RegExp(pattern).test(bad), bad).toBe(false);
      expect(dig(bodySchema('/admin/v1/keys', 'post'), 'properties', 'org', 'pattern')).toBe(pattern);
      expect(dig(bodySchema('/admin/v1/portal-keys', 'post'), 'properties', 'org', 'pattern')).toBe(pattern);
      const org = await admin('POST', '/admin/v1/orgs', { slug: 'Bad Slug' });
      expect(org.statusCode).toBe(400);
      expect(message(org)).toContain('slug must be an organisation slug');
      const keyForBadOrg = await admin('POST', '/admin/v1/keys', { org: 'ACME', scopes: ['products:read'] });
      expect(keyForBadOrg.statusCode).toBe(400);
      expect(keyForBadOrg.json<Json>().details).toEqual([expect.objectContaining({ path: 'org' })]);
    });

    it('key scopes are an enum of the static scopes plus the object-scope pattern; an unknown scope is a 400', async () => {
      const items = dig(bodySchema('/admin/v1/keys', 'post'), 'properties', 'scopes', 'items');
      expect(dig(items, 'anyOf', 0, 'enum')).toEqual(['all', ...h.gateway.scopes.static]);
      expect(dig(items, 'anyOf', 1, 'pattern')).toBe('^objects:[a-z][a-z0-9_-]{0,62}:(read|write)$');
      const unknown = await admin('POST', '/admin/v1/keys', { org: 'acme', scopes: ['products:read', 'products:admin'] });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json<Json>().details).toEqual([{ path: 'scopes.1', message: 'unknown scope: products:admin' }]);
      const objectScope = await admin('POST', '/admin/v1/keys', { org: 'acme', scopes: ['objects:fitments:read'] });
      expect(objectScope.statusCode, objectScope.body).toBe(201);
    });

    it('PATCH bodies say minProperties: 1 and an empty one is a 400', async () => {
      expect(bodySchema('/v1/products/{sku}', 'patch').minProperties).toBe(1);
      expect(bodySchema('/v1/warranty-claims/{id_or_number}', 'patch').minProperties).toBe(1);
      const empty = await h.request({ method: 'PATCH', url: '/v1/products/TIRE-1', key, payload: {} });
      expect(empty.statusCode).toBe(400);
      expect(message(empty)).toContain('send at least one of name, description, status, stock_qty, bin_location');
    });
  });

  describe('text rules', () => {
    it('an identifier with tag characters, a variation selector or a Hangul filler -> 400 naming it, on REST and MCP', async () => {
      for (const sku of ['TIRE\u{e0041}', 'TIRE\ufe0f', '\u3164']) {
        const rest = await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku, name: 'x' } });
        expect(rest.statusCode, sku).toBe(400);
        expect(message(rest)).toMatch(/sku must not contain invisible or bidi-control characters \(U\+[0-9A-F]+ at position \d\)/);
        const mcp = await callMcp(h, 'products_create', { sku, name: 'x' }, key);
        expect(mcp.payload).toMatchObject({ code: 'invalid_input' });
        expect(mcp.text).toContain('sku must not contain invisible or bidi-control characters');
      }
    });

    it('a single-line field refuses a line break; a multi-line one keeps it', async () => {
      const name = await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku: 'TIRE-2', name: 'Tire\nTIRE-9  active' } });
      expect(name.statusCode).toBe(400);
      expect(message(name)).toContain('name must not contain line breaks (U+000A at position 5)');
      const described = await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku: 'TIRE-2', name: 'Tire', description: 'line 1\nline 2' } });
      expect(described.statusCode, described.body).toBe(201);
      const mcp = await callMcp(h, 'products_update', { sku: 'TIRE-2', bin_location: 'A-1\r\nB-2' }, key);
      expect(mcp.text).toContain('bin_location must not contain line breaks');
    });

    it('free text refuses bidi overrides, isolates and tag characters, and a ZWJ outside an emoji; keeps emoji sequences', async () => {
      for (const [description, refused] of [['safe\u202eexe.txt', 'bidi overrides or isolates (U+202E'], ['a\u2066b', 'bidi overrides or isolates (U+2066'], ['hi\u{e0069}', 'invisible characters (U+E0069'], ['pay\u200dpal', 'zero-width joiner outside an emoji']] as const) {
        const rest = await h.request({ method: 'PATCH', url: '/v1/products/TIRE-1', key, payload: { description } });
        expect(rest.statusCode, description).toBe(400);
        expect(message(rest)).toContain(refused);
        const mcp = await callMcp(h, 'products_update', { sku: 'TIRE-1', description }, key);
        expect(mcp.text).toContain(refused);
      }
      const emoji = await h.request({ method: 'PATCH', url: '/v1/products/TIRE-1', key, payload: { description: 'Team \u{1f469}\u{1f3fd}\u200d\u{1f4bb} \u{1f3f3}\ufe0f\u200d\u{1f308}' } });
      expect(emoji.statusCode, emoji.body).toBe(200);
    });

    it('a connection label with a line break is refused at POST /connect and on connect tokens', async () => {
      const token = await admin('POST', '/admin/v1/connect-tokens', { org: 'acme', label: 'North\ncon_forged  vendor1_livelink  active' });
      expect(token.statusCode).toBe(400);
      expect(message(token)).toContain('label must not contain line breaks');
      const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
      const connect = await h.request({
        method: 'POST',
        url: '/connect',
        payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'u', password: 'p' }, label: 'North\r\ncon_forged' },
      });
      expect(connect.statusCode).toBe(400);
      expect(message(connect)).toContain('label must not contain line breaks');
    });
  });
});
