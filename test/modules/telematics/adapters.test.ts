import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  VendorRejectedError,
  VendorUnavailableError,
  type Credentials,
  type ProviderEndpoint,
} from '../../../src/modules/telematics/providers/adapter.js';
import { credentialAdapterFor, oauthAdapterFor } from '../../../src/modules/telematics/providers/adapters.js';
import { PROVIDERS, type Provider } from '../../../src/modules/telematics/providers/catalog.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';

const PASSWORD = 's3cret-pass';
const API_KEY = 'k-live-0123456789';

let sim: VendorSim;

beforeAll(async () => {
  sim = await startVendorSim({ fleetSize: 12 });
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.reset();
});

const endpointOf = (p: Provider, overrides: Partial<ProviderEndpoint> = {}): ProviderEndpoint => ({
  baseUrl: `${sim.url}/${p.id}`,
  clientId: 'gw-client',
  clientSecret: 'gw-secret',
  timeoutMs: 2000,
  ...overrides,
});

const good = (p: Provider): Credentials => (p.credentials === 'api_key' ? { api_key: API_KEY } : { username: 'fleet-user', password: PASSWORD });
const wrong = (p: Provider): Credentials => (p.credentials === 'api_key' ? { api_key: 'wrong-key' } : { username: 'fleet-user', password: 'wrong-password' });

/** A port nobody listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const withCredentials = PROVIDERS.filter((p) => p.group !== 'stub' && p.group !== 'oem_oauth');
const oem = PROVIDERS.filter((p) => p.group === 'oem_oauth');

describe('adapter lookup', () => {
  it('has a credential adapter for every credential provider and an OAuth adapter for the OEM ones, none for stubs', () => {
    for (const p of PROVIDERS) {
      expect(credentialAdapterFor(p) !== undefined, p.id).toBe(p.group !== 'stub' && p.group !== 'oem_oauth');
      expect(oauthAdapterFor(p) !== undefined, p.id).toBe(p.group === 'oem_oauth');
    }
  });
});

describe.each(withCredentials.map((p) => [p.id, p] as const))('verify %s', (_id, provider) => {
  const verify = (credentials: Credentials, endpoint = endpointOf(provider)) => {
    const adapter = credentialAdapterFor(provider);
    if (adapter === undefined) throw new Error('no adapter');
    return adapter.verify(provider, endpoint, credentials);
  };

  it('accepts good credentials', async () => {
    const account = await verify(good(provider));
    if (provider.group !== 'iso15143') expect(account.accountName).toBe(`Simulated fleet (${provider.id})`);
    expect(sim.requests(provider.id).every((r) => r.status < 300)).toBe(true);
  });

  it('rejects wrong credentials with a readable message that holds no secret', async () => {
    const err = await failure(verify(wrong(provider)));
    expect(err).toBeInstanceOf(VendorRejectedError);
    const message = (err as Error).message;
    expect(message).toMatch(new RegExp(`^${provider.id} refused the (username or password|API key)$`));
    expect(message).not.toContain('wrong-password');
    expect(message).not.toContain('wrong-key');
  });

  it('rejects everything in reject mode', async () => {
    sim.setMode(provider.id, { kind: 'reject' });
    expect(await failure(verify(good(provider)))).toBeInstanceOf(VendorRejectedError);
  });

  it('reports a failing vendor as unavailable (failed), without the credentials', async () => {
    sim.setMode(provider.id, { kind: 'fail', status: 502 });
    const err = await failure(verify(good(provider)));
    expect(err).toBeInstanceOf(VendorUnavailableError);
    expect(err).toMatchObject({ kind: 'failed', status: 502 });
    expect((err as Error).message).toMatch(new RegExp(`^${provider.id} answered HTTP 502 at /`));
    expect((err as Error).message).not.toContain(PASSWORD);
  });

  it('reports rate limiting as failed with the Retry-After', async () => {
    sim.setMode(provider.id, { kind: 'rate_limited', retryAfterSeconds: 42 });
    expect(await failure(verify(good(provider)))).toMatchObject({ kind: 'failed', retryAfterSeconds: 42 });
  });

  it('times out a slow vendor', async () => {
    sim.setMode(provider.id, { kind: 'slow', delayMs: 300 });
    const err = await failure(verify(good(provider), endpointOf(provider, { timeoutMs: 80 })));
    expect(err).toBeInstanceOf(VendorUnavailableError);
    expect(err).toMatchObject({ kind: 'timeout' });
  });

  it('reports a closed port as failed', async () => {
    const port = await closedPort();
    const err = await failure(verify(good(provider), endpointOf(provider, { baseUrl: `http://127.0.0.1:${port}/${provider.id}` })));
    expect(err).toBeInstanceOf(VendorUnavailableError);
    expect(err).toMatchObject({ kind: 'failed' });
  });
});

describe('ISO verify checks the document', () => {
  it('fails when the fleet page is not a fleet document', async () => {
    const provider = PROVIDERS.find((p) => p.id === 'vendor1_livelink');
    const adapter = provider && credentialAdapterFor(provider);
    if (provider === undefined || adapter === undefined) throw new Error('no vendor1_livelink');
    // An aggregator account answers JSON, not an ISO fleet: pointing the ISO adapter there must not pass.
    const elsewhere = { ...endpointOf(provider), baseUrl: `${sim.url}/vendor15/rest/whoami?` };
    expect(await failure(adapter.verify(provider, elsewhere, good(provider)))).toMatchObject({ kind: 'failed' });
  });
});

describe.each(oem.map((p) => [p.id, p] as const))('OAuth consent %s', (_id, provider) => {
  const redirectUri = 'https://gateway.example/connect/callback';
  const adapterOf = () => {
    const adapter = oauthAdapterFor(provider);
    if (adapter === undefined) throw new Error('no adapter');
    return adapter;
  };
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };

  /** Plays the fleet owner's browser: opens the authorize URL and reads the redirect without following it. */
  async function consent(challenge: string, state = 'state-123'): Promise<URL> {
    const url = adapterOf().authorizeUrl(endpointOf(provider), { state, codeChallenge: challenge, redirectUri });
    expect(url.startsWith(`${sim.url}/${provider.id}/oauth/authorize?`)).toBe(true);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location') ?? '');
    expect(location.searchParams.get('state')).toBe(state);
    return location;
  }

  it('goes authorize -> code -> tokens -> refresh, rotating the refresh token', async () => {
    const { verifier, challenge } = pkce();
    const code = (await consent(challenge)).searchParams.get('code') ?? '';
    const now = new Date('2026-03-02T12:00:00Z');
    const tokens = await adapterOf().exchangeCode(endpointOf(provider), { code, codeVerifier: verifier, redirectUri }, now);
    expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) as unknown, refresh_token: expect.any(String) as unknown, expires_at: '2026-03-02T13:00:00.000Z' });
    const machines = await fetch(`${sim.url}/${provider.id}/api/machines`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(machines.status).toBe(200);
    const refreshed = await adapterOf().refresh(endpointOf(provider), tokens.refresh_token ?? '', now);
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const reused = await failure(adapterOf().refresh(endpointOf(provider), tokens.refresh_token ?? '', now));
    expect(reused).toBeInstanceOf(VendorRejectedError);
    expect((reused as Error).message).toBe(`${provider.id} refused the refresh token; the fleet must connect again`);
  });

  it('rejects a bad verifier and a revoked refresh token', async () => {
    const { verifier, challenge } = pkce();
    const code = (await consent(challenge)).searchParams.get('code') ?? '';
    const bad = await failure(adapterOf().exchangeCode(endpointOf(provider), { code, codeVerifier: pkce().verifier, redirectUri }, new Date()));
    expect(bad).toBeInstanceOf(VendorRejectedError);
    expect((bad as Error).message).toContain(provider.id);
    const tokens = await adapterOf().exchangeCode(endpointOf(provider), { code, codeVerifier: verifier, redirectUri }, new Date());
    sim.revokeRefreshTokens(provider.id);
    expect(await failure(adapterOf().refresh(endpointOf(provider), tokens.refresh_token ?? '', new Date()))).toBeInstanceOf(VendorRejectedError);
  });

  it('reports a failing, slow or unreachable token endpoint as unavailable', async () => {
    sim.setMode(provider.id, { kind: 'fail', status: 503 });
    expect(await failure(adapterOf().refresh(endpointOf(provider), 'rt_x', new Date()))).toMatchObject({ kind: 'failed' });
    sim.setMode(provider.id, { kind: 'slow', delayMs: 300 });
    expect(await failure(adapterOf().refresh(endpointOf(provider, { timeoutMs: 80 }), 'rt_x', new Date()))).toMatchObject({ kind: 'timeout' });
    const port = await closedPort();
    const closed = endpointOf(provider, { baseUrl: `http://127.0.0.1:${port}/${provider.id}` });
    expect(await failure(adapterOf().exchangeCode(closed, { code: 'c', codeVerifier: 'v', redirectUri }, new Date()))).toMatchObject({ kind: 'failed' });
  });

  it('a denied consent comes back as access_denied', async () => {
    const { challenge } = pkce();
    const url = `${adapterOf().authorizeUrl(endpointOf(provider), { state: 's', codeChallenge: challenge, redirectUri })}&deny=1`;
    const res = await fetch(url, { redirect: 'manual' });
    expect(new URL(res.headers.get('location') ?? '').searchParams.get('error')).toBe('access_denied');
  });
});
