import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VendorRejectedError } from '../../../src/modules/telematics/providers/adapter.js';
import { CONSENT_LIFETIME_MS, OAUTH_CALLBACK_PATH } from '../../../src/modules/telematics/connect/connect.service.js';
import { REFRESH_AHEAD_MS } from '../../../src/modules/telematics/connect/oauth-consent.service.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

/**
 * The OEM providers' browser consent end to end: POST /connect -> the vendor's authorize URL (the simulator answers the
 * consent with a 302 straight away) -> the gateway's callback page -> an active connection with tokens stored encrypted;
 * then the refresh of those tokens. The harness clock is manual; the simulator runs on real time (its codes live 10 min,
 * far longer than a test), and the gateway's refresh decision uses the harness clock against the expiry it computed.
 */

const OAUTH_PROVIDERS = ['vendor11_operations_center', 'vendor12_fieldops'] as const;
type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

interface Connection {
  id: string;
  provider: string;
  status: string;
  consent_expires_at: string | null;
  credentials_hint: string | null;
  updated_at: string;
}

interface StoredTokens {
  access_token: string;
  refresh_token?: string;
  expires_at?: string;
}

describe.each(dialects)('OAuth consent (%s)', (dialect) => {
  let sim: VendorSim;
  let h: Harness;
  let org: { id: string; slug: string };
  let readKey: string;

  beforeAll(async () => {
    sim = await startVendorSim();
    h = await startHarness(dialect, { env: { VENDOR_SIM_URL: sim.url } });
    org = await h.org('acme');
    readKey = (await h.key('acme', 'telematics:read')).key;
  });
  afterAll(async () => {
    await h?.close();
    await sim?.close();
  });
  beforeEach(() => sim.reset());

  async function connect(provider: OAuthProvider) {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme', provider });
    const res = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider } });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ ok: boolean; connection_id: string; provider: string; next_step: { type: string; authorize_url: string; expires_at: string } }>();
    expect(body).toMatchObject({ ok: true, provider, next_step: { type: 'oauth_consent' } });
    return { id: body.connection_id, authorizeUrl: body.next_step.authorize_url, expiresAt: body.next_step.expires_at };
  }

  /** Follows the authorize URL like a browser that does not follow the redirect: the callback URL the vendor sent back to. */
  async function authorize(authorizeUrl: string, extra: Record<string, string> = {}): Promise<URL> {
    const url = new URL(authorizeUrl);
    for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.pathname).toBe(OAUTH_CALLBACK_PATH);
    return location;
  }

  const callback = (target: URL | string) => {
    const url = typeof target === 'string' ? target : target.pathname + target.search;
    return h.request({ method: 'GET', url });
  };

  /** A page answer: status, every page header, and the title in the body. */
  function expectPage(res: Awaited<ReturnType<typeof callback>>, status: number, title: RegExp): void {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toMatch(/^<!doctype html>/);
    expect(res.body).not.toMatch(/<script/i);
    expect(res.body).toMatch(title);
  }

  async function read(id: string): Promise<Connection> {
    const res = await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key: readKey });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ connection: Connection }>().connection;
  }

  async function listed(id: string): Promise<Connection | undefined> {
    const res = await h.request({ method: 'GET', url: '/v1/telematics/connections?limit=200', key: readKey });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ connections: Connection[] }>().connections.find((c) => c.id === id);
  }

  async function row(id: string) {
    return h.gateway.database.db.selectFrom('telematics_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function storedTokens(id: string): Promise<StoredTokens> {
    const r = await row(id);
    expect(r.oauth_tokens_ciphertext).toMatch(/^v1:[^:]+:/);
    return JSON.parse(await h.gateway.vault.decrypt(r.oauth_tokens_ciphertext ?? '', id)) as StoredTokens;
  }

  const tokenCalls = (provider: string) => sim.requests(provider).filter((r) => r.path.endsWith('/oauth/token')).length;

  async function consented(provider: OAuthProvider): Promise<string> {
    const c = await connect(provider);
    expectPage(await callback(await authorize(c.authorizeUrl)), 200, /Account connected/);
    return c.id;
  }

  describe.each(OAUTH_PROVIDERS)('%s', (provider) => {
    it('round trip: connect -> pending_consent -> vendor consent -> callback page -> active', async () => {
      const c = await connect(provider);
      expect(Date.parse(c.expiresAt) - h.clock.now().getTime()).toBe(CONSENT_LIFETIME_MS);
      const pending = await read(c.id);
      expect(pending).toMatchObject({ id: c.id, provider, status: 'pending_consent', consent_expires_at: c.expiresAt, credentials_hint: null });
      expect((await row(c.id)).oauth_tokens_ciphertext).toBeNull();

      const back = await authorize(c.authorizeUrl);
      expect(back.searchParams.get('code')).toBeTruthy();
      expect(back.searchParams.get('state')).toBe(new URL(c.authorizeUrl).searchParams.get('state'));
      const page = await callback(back);
      expectPage(page, 200, /Account connected/);
      expect(page.body).toContain(provider);
      expect(page.headers['x-frame-options']).toBe('DENY');

      const active = await read(c.id);
      expect(active).toMatchObject({ id: c.id, status: 'active', consent_expires_at: null });
      expect(await listed(c.id)).toMatchObject({ status: 'active', consent_expires_at: null });

      const r = await row(c.id);
      expect(r.consent_state_hash).toBeNull();
      expect(r.consent_verifier_ciphertext).toBeNull();
      const tokens = await storedTokens(c.id);
      expect(tokens.access_token).toMatch(/^at_/);
      expect(tokens.refresh_token).toMatch(/^rt_/);
      expect(r.oauth_tokens_ciphertext).not.toContain(tokens.access_token);
      expect(r.oauth_tokens_ciphertext).not.toContain(tokens.refresh_token);
      // The page never shows the code or the tokens.
      expect(page.body).not.toContain(back.searchParams.get('code') ?? '<none>');
      expect(page.body).not.toContain(tokens.access_token);
      // Exactly one token exchange.
      expect(tokenCalls(provider)).toBe(1);
    });

    it('PKCE S256 with a 43-char challenge, and a fresh state and challenge per connect', async () => {
      const a = new URL((await connect(provider)).authorizeUrl);
      const b = new URL((await connect(provider)).authorizeUrl);
      for (const u of [a, b]) {
        expect(u.searchParams.get('response_type')).toBe('code');
        expect(u.searchParams.get('code_challenge_method')).toBe('S256');
        expect(u.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(u.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43,}$/);
        expect(u.searchParams.get('client_id')).toBeTruthy();
        expect(new URL(u.searchParams.get('redirect_uri') ?? '').pathname).toBe(OAUTH_CALLBACK_PATH);
        expect(u.pathname).toBe(`/${provider}/oauth/authorize`);
      }
      expect(a.searchParams.get('state')).not.toBe(b.searchParams.get('state'));
      expect(a.searchParams.get('code_challenge')).not.toBe(b.searchParams.get('code_challenge'));
    });

    it('replaying the callback URL after success is refused (state is single use) and changes nothing', async () => {
      const c = await connect(provider);
      const back = await authorize(c.authorizeUrl);
      expectPage(await callback(back), 200, /Account connected/);
      const before = await row(c.id);
      const calls = tokenCalls(provider);
      expectPage(await callback(back), 400, /not valid/);
      expect(tokenCalls(provider)).toBe(calls);
      expect(await row(c.id)).toEqual(before);
      expect((await read(c.id)).status).toBe('active');
    });

    it('an unknown, missing or tampered state -> 400 page, nothing changes and the vendor is not called', async () => {
      const c = await connect(provider);
      const back = await authorize(c.authorizeUrl);
      const before = await row(c.id);
      const code = back.searchParams.get('code') ?? '';
      const state = back.searchParams.get('state') ?? '';
      for (const url of [
        `${OAUTH_CALLBACK_PATH}?state=unknown-state&code=${code}`,
        `${OAUTH_CALLBACK_PATH}?code=${code}`,
        `${OAUTH_CALLBACK_PATH}?state=${state}x&code=${code}`,
        `${OAUTH_CALLBACK_PATH}?state=&code=${code}`,
        `${OAUTH_CALLBACK_PATH}`,
      ]) {
        expectPage(await callback(url), 400, /not valid/);
      }
      expect(tokenCalls(provider)).toBe(0);
      expect(await row(c.id)).toEqual(before);
      expect(await read(c.id)).toMatchObject({ status: 'pending_consent', consent_expires_at: c.expiresAt });
      // The genuine callback still works afterwards.
      expectPage(await callback(back), 200, /Account connected/);
    });

    it('a callback with the state but no code -> 400 page, still pending', async () => {
      const c = await connect(provider);
      const state = new URL(c.authorizeUrl).searchParams.get('state') ?? '';
      expectPage(await callback(`${OAUTH_CALLBACK_PATH}?state=${state}`), 400, /no authorization/);
      expect((await read(c.id)).status).toBe('pending_consent');
      expect(tokenCalls(provider)).toBe(0);
    });

    it('denied consent -> 403 page, still pending_consent; the same link then succeeds before expiry', async () => {
      const c = await connect(provider);
      const denied = await authorize(c.authorizeUrl, { deny: '1' });
      expect(denied.searchParams.get('error')).toBe('access_denied');
      expect(denied.searchParams.get('code')).toBeNull();
      expectPage(await callback(denied), 403, /declined/);
      expect(await read(c.id)).toMatchObject({ status: 'pending_consent', consent_expires_at: c.expiresAt });
      expect(tokenCalls(provider)).toBe(0);

      h.clock.advance(CONSENT_LIFETIME_MS - 60_000);
      expectPage(await callback(await authorize(c.authorizeUrl)), 200, /Account connected/);
      expect(await read(c.id)).toMatchObject({ status: 'active', consent_expires_at: null });
    });

    it('another vendor error on the callback -> 400 page, still pending', async () => {
      const c = await connect(provider);
      const state = new URL(c.authorizeUrl).searchParams.get('state') ?? '';
      expectPage(await callback(`${OAUTH_CALLBACK_PATH}?state=${state}&error=server_error`), 400, /vendor reported a problem/);
      expect((await read(c.id)).status).toBe('pending_consent');
    });

    it('a callback after the consent time ran out -> 410 page and consent_expired, then the state is dead', async () => {
      const c = await connect(provider);
      const back = await authorize(c.authorizeUrl);
      h.clock.advance(CONSENT_LIFETIME_MS + 1000);
      expectPage(await callback(back), 410, /ran out/);
      expect(tokenCalls(provider)).toBe(0);
      expect(await read(c.id)).toMatchObject({ status: 'consent_expired', consent_expires_at: null });
      const r = await row(c.id);
      expect(r.status).toBe('consent_expired');
      expect(r.oauth_tokens_ciphertext).toBeNull();
      expect(r.consent_state_hash).toBeNull();
      expect(r.consent_verifier_ciphertext).toBeNull();
      // A retry of the same link now finds nothing.
      expectPage(await callback(back), 400, /not valid/);
      expect((await read(c.id)).status).toBe('consent_expired');
    });

    it('exactly at the expiry instant the consent is expired (410)', async () => {
      const c = await connect(provider);
      const back = await authorize(c.authorizeUrl);
      h.clock.advance(CONSENT_LIFETIME_MS);
      expectPage(await callback(back), 410, /ran out/);
    });

    it('a pending connection read after its consent time, with no callback, reads consent_expired', async () => {
      const c = await connect(provider);
      h.clock.advance(CONSENT_LIFETIME_MS - 1000);
      expect((await read(c.id)).status).toBe('pending_consent');
      h.clock.advance(2000);
      expect(await read(c.id)).toMatchObject({ status: 'consent_expired', consent_expires_at: null });
      expect(await listed(c.id)).toMatchObject({ status: 'consent_expired', consent_expires_at: null });
      // Nothing was written: the status is derived on read.
      expect((await row(c.id)).status).toBe('pending_consent');
    });

    it('a tampered code -> 400 page, still pending; the genuine code then works', async () => {
      const c = await connect(provider);
      const back = await authorize(c.authorizeUrl);
      const tampered = new URL(back);
      tampered.searchParams.set('code', `${back.searchParams.get('code') ?? ''}x`);
      expectPage(await callback(tampered), 400, /refused the authorization/);
      expect(await read(c.id)).toMatchObject({ status: 'pending_consent', consent_expires_at: c.expiresAt });
      expect((await row(c.id)).oauth_tokens_ciphertext).toBeNull();
      expectPage(await callback(back), 200, /Account connected/);
      expect((await read(c.id)).status).toBe('active');
    });

    it('vendor down during the callback -> 502 page, still pending; a retry with a fresh code works', async () => {
      const c = await connect(provider);
      const back = await authorize(c.authorizeUrl);
      sim.setMode(provider, { kind: 'fail', status: 503 });
      expectPage(await callback(back), 502, /could not be reached/);
      expect(await read(c.id)).toMatchObject({ status: 'pending_consent', consent_expires_at: c.expiresAt });
      sim.setMode(provider, { kind: 'up' });
      const fresh = await authorize(c.authorizeUrl);
      expect(fresh.searchParams.get('code')).not.toBe(back.searchParams.get('code'));
      expectPage(await callback(fresh), 200, /Account connected/);
      expect((await read(c.id)).status).toBe('active');
    });

    it('refresh: a token expiring within 5 minutes is refreshed (rotated) and stored encrypted', async () => {
      const id = await consented(provider);
      const first = await storedTokens(id);
      expect(Date.parse(first.expires_at ?? '')).toBeGreaterThan(h.clock.now().getTime() + REFRESH_AHEAD_MS);

      // Fresh: no vendor call.
      const calls = tokenCalls(provider);
      expect(await h.gateway.services.oauthConsent.accessToken(org.id, id)).toBe(first.access_token);
      expect(tokenCalls(provider)).toBe(calls);

      h.clock.set(new Date(Date.parse(first.expires_at ?? '') - REFRESH_AHEAD_MS + 1000));
      const next = await h.gateway.services.oauthConsent.accessToken(org.id, id);
      expect(next).not.toBe(first.access_token);
      expect(tokenCalls(provider)).toBe(calls + 1);

      const stored = await storedTokens(id);
      expect(stored.access_token).toBe(next);
      expect(stored.refresh_token).toMatch(/^rt_/);
      expect(stored.refresh_token).not.toBe(first.refresh_token);
      expect(Date.parse(stored.expires_at ?? '')).toBeGreaterThan(h.clock.now().getTime() + REFRESH_AHEAD_MS);
      const r = await row(id);
      expect(r.oauth_tokens_ciphertext).not.toContain(next);
      expect(r.status).toBe('active');

      // The refreshed token is one the vendor accepts.
      const api = await fetch(`${sim.url}/${provider}/api/machines`, { headers: { authorization: `Bearer ${next}` } });
      expect(api.status).toBe(200);

      // Fresh again: the same token, no call.
      expect(await h.gateway.services.oauthConsent.accessToken(org.id, id)).toBe(next);
      expect(tokenCalls(provider)).toBe(calls + 1);
      expect((await read(id)).status).toBe('active');
    });

    it.each([
      ['revoked refresh tokens', (s: VendorSim, p: string) => s.revokeRefreshTokens(p)],
      ["the vendor in 'reject' mode", (s: VendorSim, p: string) => s.setMode(p, { kind: 'reject' })],
    ])('refresh refused (%s) -> rejects and the connection reads reauth_required', async (_name, refuse) => {
      const id = await consented(provider);
      const first = await storedTokens(id);
      refuse(sim, provider);
      h.clock.set(new Date(Date.parse(first.expires_at ?? '') - 60_000));
      await expect(h.gateway.services.oauthConsent.accessToken(org.id, id)).rejects.toBeInstanceOf(VendorRejectedError);
      expect((await read(id)).status).toBe('reauth_required');
      expect(await listed(id)).toMatchObject({ status: 'reauth_required' });
      // No further use: a conflict, not another vendor call.
      const calls = tokenCalls(provider);
      await expect(h.gateway.services.oauthConsent.accessToken(org.id, id)).rejects.toMatchObject({ code: 'connection_not_active' });
      expect(tokenCalls(provider)).toBe(calls);
    });

    it('refresh with the vendor down -> rejects, the connection stays active and the old tokens are kept', async () => {
      const id = await consented(provider);
      const first = await storedTokens(id);
      sim.setMode(provider, { kind: 'fail', status: 503 });
      h.clock.set(new Date(Date.parse(first.expires_at ?? '') - 60_000));
      await expect(h.gateway.services.oauthConsent.accessToken(org.id, id)).rejects.toThrow();
      expect((await read(id)).status).toBe('active');
      expect(await storedTokens(id)).toEqual(first);
      sim.setMode(provider, { kind: 'up' });
      expect(await h.gateway.services.oauthConsent.accessToken(org.id, id)).not.toBe(first.access_token);
    });
  });

  it('accessToken of a pending or unknown connection is refused, and another org cannot reach it', async () => {
    const c = await connect('vendor11_operations_center');
    await expect(h.gateway.services.oauthConsent.accessToken(org.id, c.id)).rejects.toMatchObject({ code: 'connection_not_active' });
    await expect(h.gateway.services.oauthConsent.accessToken(org.id, 'con_unknown')).rejects.toMatchObject({ code: 'not_found' });
    const other = await h.org('other-org');
    const id = await consented('vendor12_fieldops');
    await expect(h.gateway.services.oauthConsent.accessToken(other.id, id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('the callback of one provider cannot be completed with the code of another', async () => {
    const a = await connect('vendor11_operations_center');
    const b = await connect('vendor12_fieldops');
    const backA = await authorize(a.authorizeUrl);
    const backB = await authorize(b.authorizeUrl);
    const crossed = new URL(backB);
    crossed.searchParams.set('code', backA.searchParams.get('code') ?? '');
    expectPage(await callback(crossed), 400, /refused the authorization/);
    expect((await read(b.id)).status).toBe('pending_consent');
    expectPage(await callback(backA), 200, /Account connected/);
    expectPage(await callback(backB), 200, /Account connected/);
  });
});
