import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.js';
import { ProviderEndpoints } from '../../../src/modules/telematics/providers/endpoints.js';
import { findProvider, type Provider } from '../../../src/modules/telematics/providers/catalog.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { credentialsFor } from './telematics-support.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-provider-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const provider = (id: string) => findProvider(id) as Provider;
let files = 0;
const file = (content: unknown) => {
  const path = join(dir, `providers-${(files += 1)}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
};
const settings = (over: { PROVIDERS_CONFIG?: string; VENDOR_SIM_URL?: string } = {}) => ({ VENDOR_TIMEOUT_MS: 5000, VENDOR_RATE_LIMIT_PER_MINUTE: 600, ...over });

describe('provider endpoint settings (PROVIDERS_CONFIG and PROVIDER_<ID>_*)', () => {
  it('reads every setting, resolves paths against base_url and keeps endpoints without settings as they were', () => {
    const path = file({
      providers: {
        vendor2_machineiq: {
          base_url: 'https://api.vendor2.example/aemp',
          token_url: '/auth/v2/token',
          scope: 'aemp.read',
          audience: 'https://api.vendor2.example',
          token_params: { tenant: 't-1' },
          fleet_path: '/{fleet_id}/Fleet/{page}',
          series_path: '/Fleet/Equipment/{pin}/{element}/{start}/{end}/{page}',
          series_base_url: 'https://series.vendor2.example/aemp/',
          first_page: 0,
          format: 'xml',
          poll_interval_s: 1200,
          url_interval_s: 900,
        },
        vendor11_operations_center: { base_url: 'https://oc.vendor11.example', authorize_url: 'https://login.vendor11.example/authorize?tenant=x', token_url: 'https://login.vendor11.example/token' },
      },
    });
    const endpoints = new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path }), { PROVIDER_VENDOR2_MACHINEIQ_SCOPE: 'aemp.read aemp.series' });
    expect(endpoints.of(provider('vendor2_machineiq'))).toEqual({
      baseUrl: 'https://api.vendor2.example/aemp',
      timeoutMs: 5000,
      requestsPerMinute: 600,
      tokenUrl: 'https://api.vendor2.example/aemp/auth/v2/token',
      scope: 'aemp.read aemp.series',
      audience: 'https://api.vendor2.example',
      tokenParams: { tenant: 't-1' },
      fleetPath: '/{fleet_id}/Fleet/{page}',
      seriesPath: '/Fleet/Equipment/{pin}/{element}/{start}/{end}/{page}',
      seriesBaseUrl: 'https://series.vendor2.example/aemp',
      firstPage: 0,
      format: 'xml',
      urlIntervalSeconds: 900,
      // The per-URL budget raises the minimum interval: a poll sooner would only be put off.
      minPollSeconds: 900,
      pollIntervalSeconds: 1200,
    });
    expect(endpoints.of(provider('vendor11_operations_center'))).toMatchObject({ authorizeUrl: 'https://login.vendor11.example/authorize?tenant=x', tokenUrl: 'https://login.vendor11.example/token' });
  });

  it('VENDOR_SIM_URL keeps paths but drops settings that name another host', () => {
    const path = file({ providers: { vendor2_machineiq: { token_url: 'https://login.vendor2.example/token', series_base_url: 'https://s.vendor2.example', fleet_path: '/{fleet_id}/Fleet/{page}' }, vendor4_caretrack: { token_url: '/connect/token' } } });
    const endpoints = new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path, VENDOR_SIM_URL: 'http://127.0.0.1:8091' }), {});
    const v2 = endpoints.of(provider('vendor2_machineiq'));
    expect(v2?.tokenUrl).toBeUndefined();
    expect(v2?.seriesBaseUrl).toBeUndefined();
    expect(v2?.fleetPath).toBe('/{fleet_id}/Fleet/{page}');
    expect(endpoints.of(provider('vendor4_caretrack'))?.tokenUrl).toBe('http://127.0.0.1:8091/vendor4_caretrack/connect/token');
  });

  it.each([
    ['a token URL that is neither URL nor path', { vendor2_machineiq: { token_url: 'ftp://x.example/token' } }, /providers\.vendor2_machineiq\.token_url: must be an http\(s\) URL or a path/],
    ['credentials in the authorize URL', { vendor11_operations_center: { authorize_url: 'https://u:p@x.example/a' } }, /authorize_url: must not carry credentials/],
    ['a fleet path without {page}', { vendor1_livelink: { fleet_path: '/{fleet_id}/Fleet' } }, /fleet_path: must contain \{page\}/],
    ['an unknown placeholder', { vendor1_livelink: { series_path: '/Fleet/{machine}/{pin}/{element}/{start}/{end}/{page}' } }, /series_path: \{machine\} is not a placeholder here/],
    ['a path with a query', { vendor1_livelink: { fleet_path: '/Fleet/{page}?x=1' } }, /fleet_path: must be a path starting with \//],
    ['page 2 first', { vendor1_livelink: { first_page: 2 } }, /first_page/],
    ['an unknown format', { vendor1_livelink: { format: 'csv' } }, /format/],
    ['an interval below the minimum', { vendor1_livelink: { poll_interval_s: 120 } }, /poll_interval_s: must be at least the minimum interval \(300\)/],
    ['a minimum below the per-URL budget', { vendor1_livelink: { url_interval_s: 900, min_poll_interval_s: 300 } }, /min_poll_interval_s: must be at least url_interval_s \(900\)/],
    ['an ISO setting on an aggregator', { vendor13: { fleet_path: '/{fleet_id}/Fleet/{page}' } }, /providers\.vendor13\.fleet_path: only ISO 15143-3 feeds have it/],
    ['a scope for a provider without OAuth', { vendor1_livelink: { scope: 'read' } }, /scope: vendor1_livelink does not use OAuth/],
    ['an authorize URL without browser consent', { vendor2_machineiq: { authorize_url: '/oauth/authorize' } }, /authorize_url: vendor2_machineiq has no consent in the browser/],
    ['a token parameter the gateway sets', { vendor2_machineiq: { token_params: { grant_type: 'x' } } }, /token_params: must not set a parameter the gateway sets itself/],
  ])('refuses %s at start, in one line', (_what, providers, message) => {
    const path = file({ providers });
    const build = () => new ProviderEndpoints(settings({ PROVIDERS_CONFIG: path }), {});
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(message);
    try {
      build();
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('refuses bad settings in the environment, naming the variable', () => {
    expect(() => new ProviderEndpoints(settings(), { PROVIDER_VENDOR1_LIVELINK_FIRST_PAGE: '2' })).toThrow(/PROVIDER_VENDOR1_LIVELINK_FIRST_PAGE/);
    expect(() => new ProviderEndpoints(settings(), { PROVIDER_VENDOR1_LIVELINK_FLEET_PATH: 'Fleet/{page}' })).toThrow(/PROVIDER_VENDOR1_LIVELINK_FLEET_PATH/);
    expect(() => new ProviderEndpoints(settings(), { PROVIDER_VENDOR2_MACHINEIQ_URL_INTERVAL_S: 'often' })).toThrow(/PROVIDER_VENDOR2_MACHINEIQ_URL_INTERVAL_S/);
    expect(new ProviderEndpoints(settings({ VENDOR_SIM_URL: 'http://127.0.0.1:1' }), { PROVIDER_VENDOR1_LIVELINK_FIRST_PAGE: '0' }).of(provider('vendor1_livelink'))?.firstPage).toBe(0);
  });
});

const USER = 'fleet@acme.example';

describe.each(dialects)('each endpoint setting connects and polls end to end (%s)', (dialect) => {
  let sim: VendorSim;
  let h: Harness;
  let key: string;
  let ip = 0;
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z'));

  beforeAll(async () => {
    sim = await startVendorSim({ fleetSize: 7, pageSize: 3, now: () => clock.now() });
    const at = (id: string) => `${sim.url}/${id}`;
    const path = file({
      providers: {
        // Another token path, a scope, an audience and a parameter of the vendor's own.
        vendor2_machineiq: { base_url: at('vendor2_machineiq'), client_id: 'gw', client_secret: 'gw-secret', token_url: '/auth/v2/token', scope: 'aemp.read', audience: 'aemp-api', token_params: { tenant: 't-1' } },
        // A fleet id in the path, pages from 0, the series without ID/ on another host, a per-provider interval.
        vendor1_livelink: {
          base_url: at('vendor1_livelink'),
          fleet_path: '/{fleet_id}/Fleet/{page}',
          series_path: '/Fleet/Equipment/{pin}/{element}/{start}/{end}/{page}',
          series_base_url: `${sim.url}/other-host/vendor1_livelink`,
          first_page: 0,
          poll_interval_s: 900,
          min_poll_interval_s: 600,
        },
        // The catalog says JSON; the operator says XML.
        vendor6_lida: { base_url: at('vendor6_lida'), format: 'xml' },
        // A token URL given absolute, client credentials.
        vendor4_caretrack: { base_url: at('vendor4_caretrack'), token_url: `${sim.url}/vendor4_caretrack/connect/token`, scope: 'fleet' },
        // Consent at an authorize page elsewhere, with a scope.
        vendor11_operations_center: { base_url: at('vendor11_operations_center'), client_id: 'gw-oc', client_secret: 's', authorize_url: '/login/authorize', token_url: '/login/token', scope: 'eq1' },
      },
    });
    h = await startHarness(dialect, { env: { VENDOR_SIM_URL: undefined, PROVIDERS_CONFIG: path }, clock });
    await h.org('acme');
    key = (await h.key('acme', 'telematics:read,telematics:write')).key;
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });
  beforeEach(() => sim.reset());

  const connect = async (providerId: string, extra: Record<string, string> = {}) => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const credentials = { ...credentialsFor(providerId), ...extra };
    return h.request({ method: 'POST', url: '/connect', remoteAddress: `10.9.0.${(ip += 1)}`, payload: { connect_token, provider: providerId, ...(Object.keys(credentials).length > 0 ? { credentials } : {}) } });
  };
  const run = (id: string) => h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key });
  const read = async (id: string) => (await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key })).json<{ connection: { poll_interval_s: number; last_error: { message: string } | null } }>().connection;

  it('token URL, scope, audience and extra parameters: the vendor refuses without them, the gateway sends them', async () => {
    sim.setFleet('vendor2_machineiq', USER, { endpoints: { tokenPath: '/auth/v2/token', requireScope: 'aemp.read', requireAudience: 'aemp-api' } });
    const c = await connect('vendor2_machineiq');
    expect(c.statusCode, c.body).toBe(200);
    const id = c.json<{ connection_id: string }>().connection_id;
    const r = await run(id);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json<{ events_enqueued: number }>().events_enqueued).toBeGreaterThanOrEqual(7);
    const paths = sim.requests('vendor2_machineiq').map((q) => `${q.method} ${q.path} ${q.status}`);
    expect(paths).toContain('POST /vendor2_machineiq/auth/v2/token 200');
    expect(paths.filter((p) => p.includes('/oauth/token'))).toEqual([]);

    // A vendor asking for a scope the operator did not configure refuses the token, and connect says the vendor failed.
    sim.setFleet('vendor2_machineiq', USER, { endpoints: { tokenPath: '/auth/v2/token', requireScope: 'aemp.write' } });
    const refused = await connect('vendor2_machineiq');
    expect(refused.statusCode).toBe(502);
  });

  it('a token URL given as an absolute URL, with client credentials', async () => {
    sim.setFleet('vendor4_caretrack', USER, { endpoints: { tokenPath: '/connect/token', requireScope: 'fleet' } });
    const c = await connect('vendor4_caretrack');
    expect(c.statusCode, c.body).toBe(200);
    expect((await run(c.json<{ connection_id: string }>().connection_id)).statusCode).toBe(200);
    expect(sim.requests('vendor4_caretrack').some((q) => q.path === '/vendor4_caretrack/connect/token' && q.status === 200)).toBe(true);
  });

  it('a fleet id taken at connect, pages from 0, and the per-provider interval', async () => {
    sim.setFleet('vendor1_livelink', USER, { endpoints: { fleetId: 'F-77', firstPage: 0 } });
    const missing = await connect('vendor1_livelink');
    expect(missing.statusCode).toBe(400);
    expect(missing.json<{ error: string }>().error).toMatch(/credentials\.fleet_id is required/);
    for (const bad of ['..', 'a/b', 'x'.repeat(101), '']) {
      const r = await connect('vendor1_livelink', { fleet_id: bad });
      expect(r.statusCode, bad).toBe(400);
    }
    const wrong = await connect('vendor1_livelink', { fleet_id: 'F-78' });
    expect(wrong.statusCode, 'the vendor has no such fleet').toBe(502);

    const c = await connect('vendor1_livelink', { fleet_id: 'F-77' });
    expect(c.statusCode, c.body).toBe(200);
    const id = c.json<{ connection_id: string }>().connection_id;
    expect((await read(id)).poll_interval_s).toBe(900);
    const before = sim.requests('vendor1_livelink').length;
    const r = await run(id);
    expect(r.statusCode, r.body).toBe(200);
    const pages = sim.requests('vendor1_livelink').slice(before).map((q) => q.path);
    expect(pages).toEqual(['/vendor1_livelink/F-77/Fleet/0', '/vendor1_livelink/F-77/Fleet/1', '/vendor1_livelink/F-77/Fleet/2']);
    const machines = await h.gateway.database.db.selectFrom('outbox').select('payload').where('type', '=', 'telematics.event').execute();
    const ids = new Set(machines.map((m) => JSON.parse(m.payload) as { data: { connection_id: string; equipment: { id: string } } }).filter((e) => e.data.connection_id === id).map((e) => e.data.equipment.id));
    expect(ids.size, 'page 0 is not read as page 1: every machine, once').toBe(7);
    expect((await h.gateway.database.db.selectFrom('telematics_connections').select('fleet_id').where('id', '=', id).executeTakeFirstOrThrow()).fleet_id).toBe('F-77');

    // The operator's minimum for the provider holds.
    await expect(h.gateway.services.connections.setPolling(id, { intervalSeconds: 300 })).rejects.toThrow(/minimum of 10m/);
    expect((await h.gateway.services.connections.setPolling(id, { intervalSeconds: 600 })).poll_interval_s).toBe(600);
  });

  it('a provider that takes no fleet id refuses one', async () => {
    const r = await connect('vendor6_lida', { fleet_id: 'F-1' });
    expect(r.statusCode).toBe(400);
    expect(r.json<{ error: string }>().error).toMatch(/takes no fleet id/);
  });

  it('a format override: the gateway asks for and reads the configured format', async () => {
    const c = await connect('vendor6_lida');
    expect(c.statusCode, c.body).toBe(200);
    const r = await run(c.json<{ connection_id: string }>().connection_id);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json<{ events_enqueued: number }>().events_enqueued).toBeGreaterThanOrEqual(7);
    const asked = sim.requests('vendor6_lida').filter((q) => q.path.includes('/Fleet/'));
    expect(asked.length).toBeGreaterThan(1);
    expect(asked.every((q) => q.accept === 'application/xml')).toBe(true);
  });

  it('an authorize page and token URL elsewhere, with a scope, for consent', async () => {
    sim.setFleet('vendor11_operations_center', 'gw-oc', { endpoints: { authorizePath: '/login/authorize', tokenPath: '/login/token', requireScope: 'eq1' } });
    const c = await connect('vendor11_operations_center');
    expect(c.statusCode, c.body).toBe(200);
    const { connection_id, next_step } = c.json<{ connection_id: string; next_step: { authorize_url: string } }>();
    expect(next_step.authorize_url).toMatch(new RegExp(`^${sim.url}/vendor11_operations_center/login/authorize\\?`));
    expect(new URL(next_step.authorize_url).searchParams.get('scope')).toBe('eq1');
    const consent = await fetch(next_step.authorize_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBeNull();
    expect((await h.request({ method: 'GET', url: back.pathname + back.search })).statusCode).toBe(200);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect(sim.requests('vendor11_operations_center').some((q) => q.path === '/vendor11_operations_center/login/token' && q.status === 200)).toBe(true);
  });
});
