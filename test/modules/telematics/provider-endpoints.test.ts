import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { ProviderEndpoints } from '../../../src/modules/telematics/providers/endpoints.js';
import { findProvider, type Provider } from '../../../src/modules/telematics/providers/catalog.js';
import { startHarness } from '../../support/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-providers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const provider = (id: string) => findProvider(id) as Provider;
const file = (content: unknown) => {
  const path = join(dir, `providers-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const settings = (over: { PROVIDERS_CONFIG?: string; VENDOR_SIM_URL?: string } = {}) => ({ VENDOR_TIMEOUT_MS: 5000, VENDOR_RATE_LIMIT_PER_MINUTE: 600, ...over });

describe('provider endpoints (operator configuration)', () => {
  it('reads base URLs and OAuth clients from PROVIDERS_CONFIG, the environment over it', () => {
    const path = file({
      providers: {
        vendor1_livelink: { base_url: 'https://aemp.vendor1.example/api/' },
        vendor11_operations_center: { base_url: 'https://oc.vendor11.example', client_id: 'gw', client_secret: 'from-file', rate_limit_per_minute: 120 },
      },
    });
    const endpoints = new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path }), {
      PROVIDER_VENDOR11_OPERATIONS_CENTER_CLIENT_SECRET: 'from-env',
      PROVIDER_VENDOR13_BASE_URL: 'https://api.vendor13.example',
      PROVIDER_VENDOR13_RATE_LIMIT_PER_MINUTE: '30',
    });
    expect(endpoints.of(provider('vendor1_livelink'))).toEqual({ baseUrl: 'https://aemp.vendor1.example/api', timeoutMs: 5000, requestsPerMinute: 600 });
    expect(endpoints.of(provider('vendor11_operations_center'))).toEqual({
      baseUrl: 'https://oc.vendor11.example',
      clientId: 'gw',
      clientSecret: 'from-env',
      timeoutMs: 5000,
      requestsPerMinute: 120,
    });
    expect(endpoints.of(provider('vendor13'))).toMatchObject({ baseUrl: 'https://api.vendor13.example', requestsPerMinute: 30 });
    expect(endpoints.of(provider('vendor2_machineiq')), 'not configured').toBeUndefined();
    expect(endpoints.of(provider('vendor20_tireview')), 'a stub never').toBeUndefined();
  });

  it('points every provider at the simulator with VENDOR_SIM_URL, whatever else is set', () => {
    const path = file({ providers: { vendor1_livelink: { base_url: 'https://aemp.vendor1.example' } } });
    const endpoints = new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path, VENDOR_SIM_URL: 'http://127.0.0.1:8091/' }), {});
    expect(endpoints.of(provider('vendor1_livelink'))?.baseUrl).toBe('http://127.0.0.1:8091/vendor1_livelink');
    expect(endpoints.of(provider('vendor12_fieldops'))).toMatchObject({ baseUrl: 'http://127.0.0.1:8091/vendor12_fieldops', clientId: 'gateway-dev' });
  });

  it.each([
    ['not JSON', '{', /PROVIDERS_CONFIG: cannot read/],
    ['an unknown provider', { providers: { vendor99: { base_url: 'https://x.example' } } }, /unknown provider vendor99/],
    ['a non-http URL', { providers: { vendor1_livelink: { base_url: 'file:///etc/passwd' } } }, /PROVIDERS_CONFIG: providers.vendor1_livelink.base_url/],
    ['credentials in the URL', { providers: { vendor1_livelink: { base_url: 'https://u:p@x.example' } } }, /must not carry credentials/],
    ['an unknown setting', { providers: { vendor1_livelink: { base_url: 'https://x.example', proxy: 'y' } } }, /PROVIDERS_CONFIG/],
    ['a rate limit of 0', { providers: { vendor1_livelink: { rate_limit_per_minute: 0 } } }, /providers.vendor1_livelink.rate_limit_per_minute/],
  ])('refuses %s at start, in one line', (_what, content, message) => {
    const path = file(content);
    expect(() => new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path }), {})).toThrow(ConfigError);
    expect(() => new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path }), {})).toThrow(message);
  });

  it('refuses a missing file, and a bad URL or rate limit in the environment', () => {
    expect(() => new ProviderEndpoints(settings({ PROVIDERS_CONFIG: join(dir, 'nope.json') }), {})).toThrow(/cannot read/);
    expect(() => new ProviderEndpoints(settings(), { PROVIDER_VENDOR6_LIDA_BASE_URL: 'ftp://x.example' })).toThrow(/PROVIDER_VENDOR6_LIDA_BASE_URL/);
    expect(() => new ProviderEndpoints(settings(), { PROVIDER_VENDOR6_LIDA_BASE_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => new ProviderEndpoints(settings(), { PROVIDER_VENDOR6_LIDA_RATE_LIMIT_PER_MINUTE: 'lots' })).toThrow(/PROVIDER_VENDOR6_LIDA_RATE_LIMIT_PER_MINUTE/);
    expect(() => new ProviderEndpoints(settings({ PROVIDERS_CONFIG: file({ providers: { vendor6_lida: { base_url: 'not a url' } } }) }), {})).toThrow(ConfigError);
  });

  it('refuses a wildcard or a path in CONNECT_ALLOWED_ORIGINS', () => {
    for (const origins of ['*', 'https://*.example.com', 'https://a.example/connect', 'connect.example']) {
      expect(() => loadConfig({ CONNECT_ALLOWED_ORIGINS: origins }), origins).toThrow(/CONNECT_ALLOWED_ORIGINS/);
    }
    expect(loadConfig({ CONNECT_ALLOWED_ORIGINS: 'https://a.example, http://localhost:5173' }).CONNECT_ALLOWED_ORIGINS).toEqual(['https://a.example', 'http://localhost:5173']);
  });

  it('answers 503 for a provider the operator has not configured, and the token stays usable', async () => {
    const h = await startHarness('sqlite', { env: { VENDOR_SIM_URL: undefined } });
    try {
      await h.org('acme');
      const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
      const r = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor11_operations_center' } });
      expect(r.statusCode).toBe(503);
      expect(r.json()).toMatchObject({ ok: false, code: 'unavailable' });
      expect((await h.gateway.database.db.selectFrom('telematics_connect_tokens').select('used_at').executeTakeFirstOrThrow()).used_at).toBeNull();
    } finally {
      await h.close();
    }
  });
});
