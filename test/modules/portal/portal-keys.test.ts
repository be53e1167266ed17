import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/platform/auth/api-key.js';
import { expectError } from '../../support/auth-checks.js';
import { useInProcessCli } from '../../support/cli.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../../support/harness.js';
import { buildApp } from '../../../src/app.js';
import { createGateway } from '../../../src/gateway.js';
import { waitFor } from '../../support/wait-for.js';
import { DEALER_ORIGIN, portalRequest } from './portal-support.js';

type Json = Record<string, unknown>;

describe('./bin/gateway portal-keys', () => {
  const cli = useInProcessCli('portal-keys');
  const json = <T>(out: { stdout: string }): T => JSON.parse(out.stdout) as T;

  it('creates a key shown once with the default limits, lists it without the key, revokes it', async () => {
    expect((await cli('orgs', 'create', 'acme')).code).toBe(0);
    const created = json<Json & { id: string; key: string }>(
      await cli('portal-keys', 'create', '--org', 'acme', '--dealer', 'Springfield Tire', '--origins', 'https://a.example, https://B.example:8443/', '--json'),
    );
    expect(created.key).toMatch(/^pk_portal_dealer_[A-Za-z0-9_-]{32}$/);
    expect(created).toMatchObject({ org: 'acme', dealer: 'Springfield Tire', origins: ['https://a.example', 'https://b.example:8443'], rate_limit_per_minute: 1200, ip_rate_limit_per_minute: 60, state: 'active', revoked_at: null });
    const human = await cli('portal-keys', 'create', '--org', 'acme', '--dealer', 'Shelbyville', '--origins', 'https://c.example', '--rate-limit', '100', '--ip-rate-limit', '10');
    expect(human.stdout).toMatch(/pk_portal_dealer_/);
    expect(human.stdout).toContain('This is the only time the key is shown');

    const listed = await cli('portal-keys', 'list', '--org', 'acme', '--json');
    expect(listed.stdout).not.toContain(created.key);
    const keys = json<{ portal_keys: Json[] }>(listed).portal_keys;
    expect(keys.map((k) => [k.dealer, k.rate_limit_per_minute, k.ip_rate_limit_per_minute]).sort()).toEqual([['Shelbyville', 100, 10], ['Springfield Tire', 1200, 60]]);
    expect((await cli('portal-keys', 'list')).stdout).toContain('Shelbyville');

    const revoked = json<Json>(await cli('portal-keys', 'revoke', created.id, '--json'));
    expect(revoked).toMatchObject({ id: created.id, state: 'revoked', revoked_at: expect.any(String) as string });
    expect(json<Json>(await cli('portal-keys', 'revoke', created.id, '--json')).revoked_at).toBe(revoked.revoked_at);
  });

  it.each([
    ['a wildcard origin', ['--origins', 'https://*.example']],
    ['an origin with a path', ['--origins', 'https://a.example/shop']],
    ['an origin with credentials', ['--origins', 'https://user@a.example']],
    ['no scheme', ['--origins', 'a.example']],
    ['a rate limit of 0', ['--origins', 'https://a.example', '--rate-limit', '0']],
    ['a per-IP limit over 100000', ['--origins', 'https://a.example', '--ip-rate-limit', '100001']],
  ])('refuses %s with one clear line', async (_label, args) => {
    const out = await cli('portal-keys', 'create', '--org', 'acme', '--dealer', 'D', ...args);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: invalid portal key: /);
  });

  it('names an unknown org and an unknown key', async () => {
    expect((await cli('portal-keys', 'create', '--org', 'nope', '--dealer', 'D', '--origins', 'https://a.example')).stderr).toMatch(/org nope not found/);
    expect((await cli('portal-keys', 'revoke', 'pkey_nope')).stderr).toMatch(/portal key pkey_nope not found/);
  });
});

describe.each(dialects)('/admin/v1/portal-keys (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
    await h.org('globex');
  });
  afterAll(() => h.close());

  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    h.request({ method, url, headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, ...(payload === undefined ? {} : { payload: payload as Json }) });

  it('issues a key shown once (only its hash is stored), lists and revokes it; the portal refuses it then', async () => {
    const res = await admin('POST', '/admin/v1/portal-keys', { org: 'acme', dealer: 'Springfield Tire', origins: ['https://shop.dealer.example'], ip_rate_limit_per_minute: 30 });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ portal_key: Json & { id: string; key: string } }>().portal_key;
    expect(created).toMatchObject({ org: 'acme', ip_rate_limit_per_minute: 30, rate_limit_per_minute: 1200, state: 'active' });
    const row = await h.gateway.database.db.selectFrom('portal_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256Hex(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);

    // Keys are listed by id, which starts with the time: a later key sorts after.
    h.clock.advance(1);
    await admin('POST', '/admin/v1/portal-keys', { org: 'globex', dealer: 'Globex dealer', origins: ['https://g.example'] });
    const acme = (await admin('GET', '/admin/v1/portal-keys?org=acme')).json<{ portal_keys: Json[]; next_cursor: null }>();
    expect(acme.portal_keys.map((k) => k.id)).toEqual([created.id]);
    expect(JSON.stringify(acme)).not.toContain(created.key);
    const page = (await admin('GET', '/admin/v1/portal-keys?limit=1')).json<{ portal_keys: Json[]; next_cursor: string }>();
    expect(page.portal_keys).toHaveLength(1);
    const rest = (await admin('GET', `/admin/v1/portal-keys?limit=1&cursor=${page.next_cursor}`)).json<{ portal_keys: Json[]; next_cursor: null }>();
    expect(rest.portal_keys.map((k) => k.org)).toEqual(['globex']);

    expect((await portalRequest(h, { url: '/api/portal/v1/products', key: created.key })).statusCode).toBe(200);
    const revoked = await admin('POST', `/admin/v1/portal-keys/${created.id}/revoke`);
    expect(revoked.json<{ portal_key: Json }>().portal_key).toMatchObject({ id: created.id, state: 'revoked' });
    // At once on the instance that revoked it: the clock has not moved past the key cache's TTL.
    expectError(await portalRequest(h, { url: '/api/portal/v1/products', key: created.key }), 401, 'unauthorized');
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('another instance on the same database and Redis refuses a revoked portal key at once, through pub/sub', async () => {
    const created = (await admin('POST', '/admin/v1/portal-keys', { org: 'acme', dealer: 'Two instances', origins: [DEALER_ORIGIN] })).json<{ portal_key: { id: string; key: string } }>().portal_key;
    const other = await createGateway(h.config, { clock: h.clock, ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}), redisKeyPrefix: h.redisKeyPrefix, migrate: false });
    const otherApp = await buildApp(other, { logger: false });
    const viaOther = { ...h, request: ((opts) => otherApp.inject(opts)) as Harness['request'] };
    try {
      expect((await portalRequest(viaOther, { url: '/api/portal/v1/products', key: created.key })).statusCode).toBe(200);
      await admin('POST', `/admin/v1/portal-keys/${created.id}/revoke`);
      // The message crosses Redis: waited for as an outcome, the clock never moved, so the cache TTL cannot be what refuses.
      await waitFor(async () => (await portalRequest(viaOther, { url: '/api/portal/v1/products', key: created.key })).statusCode === 401, { what: 'the other instance to refuse the portal key' });
    } finally {
      await otherApp.close();
      await other.close();
    }
  });

  it('refuses bad input with 400 and details, an unknown org or key with 404', async () => {
    const bad = expectError(await admin('POST', '/admin/v1/portal-keys', { org: 'acme', dealer: '', origins: ['https://*.example'] }), 400, 'invalid_input');
    expect((bad.details as { path: string }[]).map((d) => d.path).sort()).toEqual(['dealer', 'origins.0']);
    expectError(await admin('POST', '/admin/v1/portal-keys', { org: 'acme', dealer: 'D', origins: [] }), 400, 'invalid_input');
    expectError(await admin('POST', '/admin/v1/portal-keys', { org: 'nope', dealer: 'D', origins: ['https://a.example'] }), 404, 'not_found');
    expectError(await admin('GET', '/admin/v1/portal-keys?org=nope'), 404, 'not_found');
    expectError(await admin('POST', '/admin/v1/portal-keys/pkey_nope/revoke'), 404, 'not_found');
  });
});
