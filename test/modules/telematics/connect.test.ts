import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROVIDERS, type Provider } from '../../../src/modules/telematics/providers/catalog.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const PAGE_ORIGIN = 'https://connect.hub.example';

type Json = Record<string, unknown>;

/** What a fleet owner would type for the provider. */
function credentialsFor(provider: Provider): Record<string, string> | undefined {
  if (provider.credentials === 'username_password') return { username: 'fleet@acme.example', password: 'correct-horse' };
  if (provider.credentials === 'api_key') return { api_key: 'key-abcdef123456' };
  return undefined;
}

describe.each(dialects)('POST /connect (%s)', (dialect) => {
  let h: Harness;
  let sim: VendorSim;
  let readKey: string;

  beforeAll(async () => {
    sim = await startVendorSim();
    h = await startHarness(dialect, {
      env: { VENDOR_SIM_URL: sim.url, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, CONNECT_ALLOWED_ORIGINS: `${PAGE_ORIGIN},http://localhost:5173`, VENDOR_TIMEOUT_MS: '400' },
    });
    await h.org('acme');
    await h.org('other');
    readKey = (await h.key('acme', 'telematics:read')).key;
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });
  beforeEach(() => sim.reset());

  // Each test posts from its own client address, so the per-IP limit is only met where a test means to meet it.
  let nextIp = 1;
  const newIp = () => `10.0.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 1}`;
  const issue = async (opts: { provider?: string; label?: string; org?: string } = {}) =>
    (await h.gateway.services.connectTokens.issue({ org: opts.org ?? 'acme', ...opts })).connect_token;
  const post = (payload: unknown, opts: { ip?: string; headers?: Record<string, string> } = {}) =>
    h.request({
      method: 'POST',
      url: '/connect',
      remoteAddress: opts.ip ?? newIp(),
      headers: { 'content-type': 'application/json', ...opts.headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const connectOk = async (token: string, provider = 'vendor1_livelink') => {
    const r = await post({ connect_token: token, provider, credentials: credentialsFor(PROVIDERS.find((p) => p.id === provider) as Provider) });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<{ connection_id: string; provider: string; next_step?: Json }>();
  };
  const connectionCount = async () => Number((await h.gateway.database.db.selectFrom('telematics_connections').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  describe('the token, in the spec\'s order of checks', () => {
    it('missing -> 400; unknown -> 404; used -> 409; expired -> 410', async () => {
      const missing = await post({ provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ ok: false, status: 400, code: 'invalid_input' });
      expect(missing.json<{ error: string }>().error).toMatch(/connect_token is required/);

      const unknown = await post({ connect_token: 'ct_nope', provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ ok: false, status: 404, code: 'not_found' });

      const token = await issue();
      await connectOk(token);
      const used = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(used.statusCode).toBe(409);
      expect(used.json()).toMatchObject({ ok: false, status: 409, code: 'token_used' });

      const old = await issue();
      h.clock.advance(15 * 60 * 1000);
      const expired = await post({ connect_token: old, provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(expired.statusCode).toBe(410);
      expect(expired.json()).toMatchObject({ ok: false, status: 410, code: 'token_expired' });
    });

    it('checks the token before the provider: an unknown token with an unknown provider is 404', async () => {
      const r = await post({ connect_token: 'ct_unknown', provider: 'vendor99' });
      expect(r.statusCode).toBe(404);
    });

    it('an unknown provider -> 400 naming the valid identifiers; the token stays usable', async () => {
      const token = await issue();
      const r = await post({ connect_token: token, provider: 'vendor99_nothing', credentials: { username: 'a', password: 'b' } });
      expect(r.statusCode).toBe(400);
      const error = r.json<{ error: string }>().error;
      for (const p of PROVIDERS) expect(error).toContain(p.id);
      await connectOk(token);
    });

    it('a token fixed to a provider refuses another (400) and connects its own', async () => {
      const token = await issue({ provider: 'vendor13' });
      const r = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(r.statusCode).toBe(400);
      expect(r.json<{ error: string }>().error).toMatch(/for vendor13/);
      await connectOk(token, 'vendor13');
    });

    it.each(['vendor20_tireview', 'vendor21_360'])('a stub provider (%s) -> 422 "contact the vendor"; the token stays usable', async (stub) => {
      const token = await issue();
      const r = await post({ connect_token: token, provider: stub, credentials: { username: 'a', password: 'b' } });
      expect(r.statusCode).toBe(422);
      expect(r.json<{ error: string }>().error).toMatch(/contact the vendor/);
      await connectOk(token);
    });
  });

  describe('the body', () => {
    it('over 16 KB -> 413; another content type -> 415; not JSON -> 400; unknown fields -> 400', async () => {
      const token = await issue();
      const big = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'a', password: 'x'.repeat(17 * 1024) } });
      expect(big.statusCode).toBe(413);
      expect(big.json()).toMatchObject({ ok: false, code: 'payload_too_large' });
      const form = await post('connect_token=x', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(form.statusCode).toBe(415);
      const broken = await post('{"connect_token":');
      expect(broken.statusCode).toBe(400);
      const extra = await post({ connect_token: token, provider: 'vendor1_livelink', redirect_to: 'http://evil.example' });
      expect(extra.statusCode).toBe(400);
      await connectOk(token);
    });

    it.each([
      ['vendor1_livelink', { username: 'a' }, /password is required/],
      ['vendor1_livelink', { api_key: 'k' }, /credentials/],
      ['vendor13', { username: 'a', password: 'b' }, /api_key is required|credentials/],
      ['vendor11_operations_center', { username: 'a', password: 'b' }, /takes no credentials/],
    ])('credentials that do not fit %s -> 400; the token stays usable', async (provider, credentials, message) => {
      const token = await issue();
      const r = await post({ connect_token: token, provider, credentials });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json<{ error: string }>().error).toMatch(message);
      await connectOk(token);
    });
  });

  describe('the vendor', () => {
    it('refused credentials -> 422 with a readable message; the token stays usable', async () => {
      const token = await issue();
      const before = await connectionCount();
      for (const [provider, credentials] of [
        ['vendor1_livelink', { username: 'fleet@acme.example', password: 'wrong-password' }],
        ['vendor13', { api_key: 'wrong-key' }],
      ] as const) {
        const r = await post({ connect_token: token, provider, credentials });
        expect(r.statusCode, r.body).toBe(422);
        expect(r.json()).toMatchObject({ ok: false, code: 'credentials_rejected' });
        expect(r.json<{ error: string }>().error).toContain(provider);
        expect(r.body).not.toContain('wrong-password');
      }
      expect(await connectionCount()).toBe(before);
      await connectOk(token);
    });

    it('an error status -> 502 vendor_error with the status, slow past the timeout -> 504; the token stays usable', async () => {
      const token = await issue();
      sim.setMode('vendor1_livelink', { kind: 'fail', status: 503 });
      const down = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(down.statusCode, down.body).toBe(502);
      expect(down.json()).toMatchObject({ ok: false, code: 'vendor_error', details: { status: 503 } });
      expect(down.json<{ error: string }>().error).toContain('HTTP 503 at /vendor1_livelink/Fleet/1');
      sim.setMode('vendor1_livelink', { kind: 'slow', delayMs: 1500 });
      const slow = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: credentialsFor(PROVIDERS[0] as Provider) });
      expect(slow.statusCode, slow.body).toBe(504);
      expect(slow.json()).toMatchObject({ ok: false, code: 'upstream_timeout' });
      sim.setMode('vendor1_livelink', { kind: 'up' });
      await connectOk(token);
    });

    it('an unreachable vendor -> 502', async () => {
      const closed = await startVendorSim();
      await closed.close();
      const h2 = await startHarness(dialect, { env: { VENDOR_SIM_URL: closed.url } });
      try {
        await h2.org('acme');
        const token = (await h2.gateway.services.connectTokens.issue({ org: 'acme' })).connect_token;
        const r = await h2.request({ method: 'POST', url: '/connect', payload: { connect_token: token, provider: 'vendor6_lida', credentials: { username: 'a', password: 'b' } } });
        expect(r.statusCode, r.body).toBe(502);
        expect(r.json()).toMatchObject({ ok: false, code: 'vendor_unreachable' });
        expect(r.json<{ error: string }>().error).toContain('could not be reached (ECONNREFUSED)');
      } finally {
        await h2.close();
      }
    });

    it('a page that is not the document asked for -> 502 vendor_document_invalid naming the path and the reason, for XML and JSON feeds', async () => {
      for (const provider of ['vendor1_livelink', 'vendor6_lida', 'vendor13']) {
        const token = await issue();
        sim.setMode(provider, { kind: 'maintenance_page' });
        const r = await post({ connect_token: token, provider, credentials: credentialsFor(PROVIDERS.find((p) => p.id === provider) as Provider) });
        expect(r.statusCode, r.body).toBe(502);
        expect(r.json(), provider).toMatchObject({ ok: false, code: 'vendor_document_invalid', details: { path: expect.stringMatching(/^\//) as unknown, reason: expect.any(String) as unknown } });
        sim.setMode(provider, { kind: 'up' });
        await connectOk(token, provider);
      }
    });
  });

  it('connects every provider against the simulator; stubs are refused with their message', async () => {
    const before = await connectionCount();
    for (const provider of PROVIDERS) {
      const token = await issue();
      const r = await post({ connect_token: token, provider: provider.id, ...(credentialsFor(provider) ? { credentials: credentialsFor(provider) } : {}), label: `${provider.id} yard` });
      if (provider.group === 'stub') {
        expect(r.statusCode, provider.id).toBe(422);
        continue;
      }
      expect(r.statusCode, `${provider.id}: ${r.body}`).toBe(200);
      const answer = r.json<{ connection_id: string; provider: string; next_step?: { type: string; authorize_url: string; expires_at: string } }>();
      expect(answer.provider).toBe(provider.id);
      expect(answer.connection_id).toMatch(/^con_/);
      if (provider.group === 'oem_oauth') {
        expect(answer.next_step?.type).toBe('oauth_consent');
        expect(answer.next_step?.authorize_url.startsWith(`${sim.url}/${provider.id}/`)).toBe(true);
      } else {
        expect(answer.next_step).toBeUndefined();
      }
      const read = await h.request({ method: 'GET', url: `/v1/telematics/connections/${answer.connection_id}`, key: readKey });
      expect(read.json<{ connection: Json }>().connection).toMatchObject({
        provider: provider.id,
        provider_group: provider.group,
        label: `${provider.id} yard`,
        status: provider.group === 'oem_oauth' ? 'pending_consent' : 'active',
        poll_interval_s: provider.minPollSeconds,
      });
    }
    expect(await connectionCount()).toBe(before + PROVIDERS.filter((p) => p.group !== 'stub').length);
  });

  it('20 concurrent posts of one token create exactly one connection; the others get 409', async () => {
    const token = await issue();
    const before = await connectionCount();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post({ connect_token: token, provider: 'vendor13', credentials: { api_key: 'key-abcdef123456' } })),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await connectionCount()).toBe(before + 1);
  });

  describe('origins', () => {
    const preflight = (origin: string | undefined) =>
      h.request({ method: 'OPTIONS', url: '/connect', headers: { ...(origin ? { origin } : {}), 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });

    it('a listed origin gets its CORS grant on the preflight and on the answer', async () => {
      const pre = await preflight(PAGE_ORIGIN);
      expect(pre.statusCode).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
      expect(String(pre.headers['access-control-allow-methods'])).toContain('POST');
      expect(String(pre.headers['access-control-allow-headers'])).toContain('content-type');
      const token = await issue();
      const r = await post({ connect_token: token, provider: 'vendor13', credentials: { api_key: 'key-abcdef123456' } }, { headers: { origin: PAGE_ORIGIN, 'sec-fetch-site': 'cross-site' } });
      expect(r.statusCode).toBe(200);
      expect(r.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
      const refused = await post({ connect_token: 'ct_x', provider: 'vendor13' }, { headers: { origin: PAGE_ORIGIN } });
      expect(refused.statusCode).toBe(404);
      expect(refused.headers['access-control-allow-origin'], 'errors are readable by the listed page too').toBe(PAGE_ORIGIN);
    });

    it.each(['https://evil.example', 'https://connect.hub.example:8443', 'http://connect.hub.example', 'null'])('an unlisted origin (%s) -> 403 and no grant', async (origin) => {
      const pre = await preflight(origin);
      expect(pre.statusCode).toBe(403);
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      const token = await issue();
      const r = await post({ connect_token: token, provider: 'vendor13', credentials: { api_key: 'key-abcdef123456' } }, { headers: { origin } });
      expect(r.statusCode).toBe(403);
      expect(r.json()).toMatchObject({ ok: false, code: 'forbidden_origin' });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      await connectOk(token, 'vendor13');
    });

    it('a browser request without an Origin -> 403; a server-side call without one is served', async () => {
      const token = await issue();
      const browser = await post({ connect_token: token, provider: 'vendor13', credentials: { api_key: 'key-abcdef123456' } }, { headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' } });
      expect(browser.statusCode).toBe(403);
      const server = await post({ connect_token: token, provider: 'vendor13', credentials: { api_key: 'key-abcdef123456' } });
      expect(server.statusCode).toBe(200);
    });
  });

  describe('the per-IP limit', () => {
    it('admits 10 requests a minute per client IP, then 429 with Retry-After; another IP is counted apart', async () => {
      const ip = newIp();
      for (let i = 0; i < 10; i++) expect((await post({ connect_token: 'ct_x', provider: 'vendor13' }, { ip })).statusCode).toBe(404);
      const limited = await post({ connect_token: 'ct_x', provider: 'vendor13' }, { ip });
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ ok: false, status: 429, code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await post({ connect_token: 'ct_x', provider: 'vendor13' }, { ip: newIp() })).statusCode).toBe(404);
      h.clock.advance(2 * 60 * 1000);
      expect((await post({ connect_token: 'ct_x', provider: 'vendor13' }, { ip })).statusCode).toBe(404);
    });

    it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy', async () => {
      const ip = newIp();
      for (let i = 0; i < 10; i++) await post({ connect_token: 'ct_x', provider: 'vendor13' }, { ip, headers: { 'x-forwarded-for': `192.0.2.${i + 1}` } });
      expect((await post({ connect_token: 'ct_x', provider: 'vendor13' }, { ip, headers: { 'x-forwarded-for': '192.0.2.200' } })).statusCode).toBe(429);

      const proxied = await startHarness(dialect, { env: { VENDOR_SIM_URL: sim.url, TRUST_PROXY: '10.9.9.9' } });
      try {
        const via = (client: string) =>
          proxied.request({ method: 'POST', url: '/connect', remoteAddress: '10.9.9.9', headers: { 'x-forwarded-for': client }, payload: { connect_token: 'ct_x', provider: 'vendor13' } });
        for (let i = 0; i < 10; i++) expect((await via('198.51.100.7')).statusCode).toBe(404);
        expect((await via('198.51.100.7')).statusCode).toBe(429);
        expect((await via('198.51.100.8')).statusCode, 'each client behind the proxy has its own budget').toBe(404);
      } finally {
        await proxied.close();
      }
    });
  });

  describe('reads', () => {
    it('lists and gets connections with a masked hint, never the credentials; another org sees 404', async () => {
      const token = await issue({ label: 'North yard' });
      const { connection_id } = await connectOk(token);
      const got = await h.request({ method: 'GET', url: `/v1/telematics/connections/${connection_id}`, key: readKey });
      expect(got.statusCode).toBe(200);
      expect(got.json<{ connection: Json }>().connection).toMatchObject({ id: connection_id, label: 'North yard', status: 'active' });
      expect(got.json<{ connection: { credentials_hint: string } }>().connection.credentials_hint).toMatch(/^f\*+@acme\.example$/);
      expect(got.body).not.toContain('correct-horse');
      const list = await h.request({ method: 'GET', url: '/v1/telematics/connections?limit=1', key: readKey });
      expect(list.json<{ connections: Json[] }>().connections).toHaveLength(1);
      expect(list.body).not.toContain('correct-horse');
      const otherKey = (await h.key('other', 'telematics:read')).key;
      expect((await h.request({ method: 'GET', url: `/v1/telematics/connections/${connection_id}`, key: otherKey })).statusCode).toBe(404);
      const otherList = await h.request({ method: 'GET', url: '/v1/telematics/connections', key: otherKey });
      expect(otherList.json<{ connections: Json[] }>().connections).toEqual([]);
    });

    it('pages through every connection with the cursor, newest first', async () => {
      const all: string[] = [];
      let cursor: string | null = '';
      do {
        const r = await h.request({ method: 'GET', url: `/v1/telematics/connections?limit=2${cursor ? `&cursor=${cursor}` : ''}`, key: readKey });
        const body = r.json<{ connections: { id: string }[]; next_cursor: string | null }>();
        all.push(...body.connections.map((c) => c.id));
        cursor = body.next_cursor;
      } while (cursor);
      expect(all.length).toBe(await connectionCount());
      expect([...all].sort().reverse()).toEqual(all);
      expect((await h.request({ method: 'GET', url: '/v1/telematics/connections?cursor=bogus', key: readKey })).statusCode).toBe(400);
    });
  });
});

describe.each(dialects)('POST /admin/v1/connect-tokens (%s)', (dialect) => {
  it('does not exist without GATEWAY_ADMIN_TOKEN (404, and absent from the OpenAPI document)', async () => {
    const h = await startHarness(dialect, { env: { GATEWAY_ADMIN_TOKEN: undefined } });
    try {
      await h.org('acme');
      const r = await h.request({ method: 'POST', url: '/admin/v1/connect-tokens', headers: { authorization: 'Bearer anything-at-all-123' }, payload: { org: 'acme' } });
      expect(r.statusCode).toBe(404);
      const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Json }>();
      expect(Object.keys(doc.paths)).not.toContain('/admin/v1/connect-tokens');
      expect(Object.keys(doc.paths)).toContain('/connect');
    } finally {
      await h.close();
    }
  });

  it('issues a token with the admin token; anything else is 401', async () => {
    const h = await startHarness(dialect, { env: { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN } });
    try {
      await h.org('acme');
      const apiKey = (await h.key('acme', 'all')).key;
      const call = (authorization: string | undefined, payload: unknown = { org: 'acme', provider: 'vendor1_livelink', label: 'Yard' }) =>
        h.request({ method: 'POST', url: '/admin/v1/connect-tokens', headers: authorization ? { authorization } : {}, payload: payload as Json });
      for (const auth of [undefined, 'Bearer wrong-token-0123456789abc', `Bearer ${apiKey}`, `Basic ${Buffer.from(`x:${ADMIN_TOKEN}`).toString('base64')}`, `Bearer ${ADMIN_TOKEN}x`]) {
        const r = await call(auth);
        expect(r.statusCode, String(auth)).toBe(401);
        expect(r.json()).toMatchObject({ ok: false, code: 'unauthorized' });
        expect(String(r.headers['www-authenticate'])).toMatch(/^Bearer/);
      }
      const ok = await call(`Bearer ${ADMIN_TOKEN}`);
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json()).toMatchObject({ ok: true, org: 'acme', provider: 'vendor1_livelink', label: 'Yard' });
      expect(ok.json<{ connect_token: string }>().connect_token).toMatch(/^ct_[A-Za-z0-9_-]{32}$/);
      expect((await call(`Bearer ${ADMIN_TOKEN}`, { org: 'nope' })).statusCode).toBe(404);
      expect((await call(`Bearer ${ADMIN_TOKEN}`, { org: 'acme', provider: 'vendor99' })).statusCode).toBe(400);
      expect((await call(`Bearer ${ADMIN_TOKEN}`, { org: 'acme', extra: 1 })).statusCode).toBe(400);
      // The admin token opens nothing else: /v1 still wants an API key.
      expect((await h.request({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).statusCode).toBe(401);
      const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { security: unknown }>> }>();
      expect(doc.paths['/admin/v1/connect-tokens']?.post?.security).toEqual([{ adminToken: [] }]);
      expect(doc.paths['/connect']?.post?.security).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
