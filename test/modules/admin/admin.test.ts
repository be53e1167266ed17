import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEventView } from '../../../src/platform/audit/audit.schemas.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../../support/harness.js';

type Json = Record<string, unknown>;

const ADMIN_ID = `admin:${createHash('sha256').update(HARNESS_ADMIN_TOKEN).digest('hex').slice(0, 8)}`;
const ROUTES: ['GET' | 'POST', string][] = [
  ['POST', '/admin/v1/orgs'],
  ['GET', '/admin/v1/orgs'],
  ['POST', '/admin/v1/keys'],
  ['GET', '/admin/v1/keys'],
  ['POST', '/admin/v1/keys/key_01jx2m9a4c6e8g0j2k4m6n8p0r/revoke'],
  ['POST', '/admin/v1/keys/key_01jx2m9a4c6e8g0j2k4m6n8p0r/rotate'],
  ['GET', '/admin/v1/audit'],
];

describe.each(dialects)('operator API: orgs, keys, audit (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
  });
  afterAll(() => h.close());

  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown, requestId?: string) =>
    h.request({
      method,
      url,
      headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}`, ...(requestId ? { 'x-request-id': requestId } : {}) },
      ...(payload === undefined ? {} : { payload: payload as Json }),
    });
  const auditOf = async (org: string) => (await admin('GET', `/admin/v1/audit?org=${org}&limit=500`)).json<{ events: AuditEventView[] }>().events;

  it('refuses every route without the admin token or with a wrong one (401)', async () => {
    const apiKey = (await h.key('outsider', 'all')).key;
    for (const [method, url] of ROUTES) {
      for (const authorization of [undefined, 'Bearer wrong-admin-token-0000', `Bearer ${apiKey}`]) {
        const res = await h.request({ method, url, headers: authorization ? { authorization } : {}, ...(method === 'POST' ? { payload: {} } : {}) });
        expectError(res, 401, 'unauthorized');
      }
    }
  });

  it('creates and lists orgs, refuses a duplicate (409) and bad slugs (400), and audits the creation', async () => {
    const created = await admin('POST', '/admin/v1/orgs', { slug: 'acme', name: 'Acme Tires' }, 'req-org-1');
    expect(created.statusCode, created.body).toBe(201);
    const org = created.json<{ org: Json }>().org;
    expect(org).toMatchObject({ slug: 'acme', name: 'Acme Tires', id: expect.stringMatching(/^org_/) as string });
    expectError(await admin('POST', '/admin/v1/orgs', { slug: 'acme' }), 409, 'already_exists');
    for (const body of [{ slug: 'Bad Slug' }, { slug: '' }, {}, { slug: 'ok', extra: 1 }, { slug: 'ok', name: '' }, { slug: 7 }]) {
      expectError(await admin('POST', '/admin/v1/orgs', body), 400, 'invalid_input');
    }
    await admin('POST', '/admin/v1/orgs', { slug: 'beta' });
    const first = (await admin('GET', '/admin/v1/orgs?limit=1')).json<{ orgs: Json[]; next_cursor: string | null }>();
    expect(first.orgs.map((o) => o.slug)).toEqual(['acme']);
    const second = (await admin('GET', `/admin/v1/orgs?limit=1&cursor=${first.next_cursor ?? ''}`)).json<{ orgs: Json[] }>();
    expect(second.orgs.map((o) => o.slug)).toEqual(['beta']);
    expectError(await admin('GET', '/admin/v1/orgs?limit=0'), 400, 'invalid_input');
    expectError(await admin('GET', '/admin/v1/orgs?cursor=nonsense'), 400, 'invalid_input');
    expect(await auditOf('acme')).toEqual([expect.objectContaining({ actor: ADMIN_ID, action: 'org.created', target: org.id, org: 'acme', request_id: 'req-org-1' })]);
  });

  it('reveals a key once: the list never shows it; the key works', async () => {
    await h.org('reveal');
    const res = await admin('POST', '/admin/v1/keys', { org: 'reveal', scopes: ['products:read'], name: 'hub sync', expires_in: '30d', rate_limit_per_minute: 50 });
    expect(res.statusCode, res.body).toBe(201);
    const key = res.json<{ key: { id: string; key: string; scopes: string[]; expires_at: string } }>().key;
    expect(key.key).toMatch(/^trk_live_/);
    expect(key.scopes).toEqual(['products:read']);
    expect(key.expires_at).toBe(new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString());
    const listed = await admin('GET', '/admin/v1/keys?org=reveal');
    expect(listed.body).not.toContain(key.key);
    expect(listed.json<{ keys: Json[] }>().keys).toEqual([
      expect.objectContaining({ id: key.id, org: 'reveal', name: 'hub sync', prefix: `${key.key.slice(0, 13)}…`, state: 'active', rate_limit_per_minute: 50 }),
    ]);
    expect((await admin('GET', '/admin/v1/keys')).json<{ keys: Json[] }>().keys.map((k) => k.id)).toContain(key.id);
    expect((await h.request({ method: 'GET', url: '/v1/products', key: key.key })).statusCode).toBe(200);
    expect((await h.request({ method: 'GET', url: '/v1/orders', key: key.key })).statusCode).toBe(403);
    expect((await auditOf('reveal')).map((e) => [e.action, e.actor])).toEqual([['key.created', ADMIN_ID], ['org.created', 'system']]);
    expect((await auditOf('reveal'))[0]?.target).toBe(key.id);
  });

  it('refuses bad key input with 400 and unknown orgs or keys with 404', async () => {
    await h.org('bad-input');
    const bodies: Json[] = [
      {},
      { org: 'bad-input' },
      { org: 'bad-input', scopes: [] },
      { org: 'bad-input', scopes: ['nope:read'] },
      { org: 'bad-input', scopes: ['products:read,orders:read'] },
      { org: 'bad-input', scopes: 'all' },
      { org: 'bad-input', scopes: ['all'], expires_in: 'forever' },
      { org: 'bad-input', scopes: ['all'], expires_in: '999999w' },
      { org: 'bad-input', scopes: ['all'], rate_limit_per_minute: 0 },
      { org: 'bad-input', scopes: ['all'], rate_limit_per_minute: 1.5 },
      { org: 'bad-input', scopes: ['all'], key: 'trk_live_chosen' },
    ];
    for (const body of bodies) expectError(await admin('POST', '/admin/v1/keys', body), 400, 'invalid_input');
    expectError(await admin('POST', '/admin/v1/keys', { org: 'ghost', scopes: ['all'] }), 404, 'not_found');
    expectError(await admin('GET', '/admin/v1/keys?org=ghost'), 404, 'not_found');
    expectError(await admin('GET', '/admin/v1/audit?org=ghost'), 404, 'not_found');
    expectError(await admin('GET', '/admin/v1/keys?limit=501'), 400, 'invalid_input');
    expectError(await admin('POST', '/admin/v1/keys/not-a-key/revoke'), 400, 'invalid_input');
    expectError(await admin('POST', '/admin/v1/keys/key_00000000000000000000000000/revoke'), 404, 'not_found');
    expectError(await admin('POST', '/admin/v1/keys/key_00000000000000000000000000/rotate', {}), 404, 'not_found');
    expectError(await admin('POST', '/admin/v1/keys/not-a-key/rotate', {}), 400, 'invalid_input');
    expect((await auditOf('bad-input')).map((e) => e.action)).toEqual(['org.created']);
  });

  it('rotates with grace: the old key works until the grace ends, then only the new one', async () => {
    const old = await h.key('rotate', 'products:read');
    const res = await admin('POST', `/admin/v1/keys/${old.id}/rotate`, { grace: '2h' }, 'req-rotate');
    expect(res.statusCode, res.body).toBe(201);
    const rotated = res.json<{ key: { id: string; key: string; old_key_expires_at: string; scopes: string[] } }>().key;
    expect(rotated.scopes).toEqual(['products:read']);
    expect(rotated.old_key_expires_at).toBe(new Date(h.clock.now().getTime() + 2 * 3_600_000).toISOString());
    const products = (key: string) => h.request({ method: 'GET', url: '/v1/products', key });
    expect((await products(old.key)).statusCode).toBe(200);
    expect((await products(rotated.key)).statusCode).toBe(200);
    h.clock.advance(2 * 3_600_000 + 1000);
    expect((await products(old.key)).statusCode).toBe(401);
    expect((await products(rotated.key)).statusCode).toBe(200);
    const keys = (await admin('GET', '/admin/v1/keys?org=rotate')).json<{ keys: Json[] }>().keys;
    expect(keys.find((k) => k.id === old.id)).toMatchObject({ state: 'expired', rotated_to: rotated.id });
    expectError(await admin('POST', `/admin/v1/keys/${old.id}/rotate`, {}), 400, 'invalid_input');
    for (const body of [{ grace: 'soon' }, { grace: '0h' }, { grace: 24 }, { grace: '24h', extra: true }]) {
      expectError(await admin('POST', `/admin/v1/keys/${rotated.id}/rotate`, body), 400, 'invalid_input');
    }
    const defaulted = await admin('POST', `/admin/v1/keys/${rotated.id}/rotate`, {});
    expect(defaulted.json<{ key: { old_key_expires_at: string } }>().key.old_key_expires_at).toBe(new Date(h.clock.now().getTime() + 24 * 3_600_000).toISOString());
    const events = await auditOf('rotate');
    expect(events.map((e) => e.action)).toEqual(['key.rotated', 'key.rotated', 'key.created', 'org.created']);
    expect(events.find((e) => e.request_id === 'req-rotate')).toMatchObject({ actor: ADMIN_ID, action: 'key.rotated', target: old.id });
  });

  it('revokes: the key stops working; revoking again keeps the first time', async () => {
    const key = await h.key('revoke', 'products:read');
    const res = await admin('POST', `/admin/v1/keys/${key.id}/revoke`);
    expect(res.statusCode, res.body).toBe(200);
    const revokedAt = res.json<{ key: { revoked_at: string } }>().key.revoked_at;
    h.clock.advance(5000);
    expect((await h.request({ method: 'GET', url: '/v1/products', key: key.key })).statusCode).toBe(401);
    expect((await admin('POST', `/admin/v1/keys/${key.id}/revoke`)).json<{ key: { revoked_at: string } }>().key.revoked_at).toBe(revokedAt);
    expectError(await admin('POST', `/admin/v1/keys/${key.id}/rotate`, {}), 400, 'invalid_input');
    expectError(await admin('POST', `/admin/v1/keys/${key.id}/revoke`, { now: true }), 400, 'invalid_input');
    expect((await auditOf('revoke')).filter((e) => e.action === 'key.revoked')).toHaveLength(2);
  });

  it('audits portal keys and connect tokens issued through the API, and pages the trail newest first', async () => {
    await h.org('trail');
    const portal = await admin('POST', '/admin/v1/portal-keys', { org: 'trail', dealer: 'Dealer', origins: ['https://dealer.example'] }, 'req-portal');
    const portalId = portal.json<{ portal_key: { id: string } }>().portal_key.id;
    await admin('POST', `/admin/v1/portal-keys/${portalId}/revoke`, undefined, 'req-portal-revoke');
    const token = await admin('POST', '/admin/v1/connect-tokens', { org: 'trail' }, 'req-token');
    expect(token.statusCode, token.body).toBe(201);
    const events = await auditOf('trail');
    expect(events.map((e) => [e.action, e.request_id])).toEqual([
      ['connect_token.issued', 'req-token'],
      ['portal_key.revoked', 'req-portal-revoke'],
      ['portal_key.created', 'req-portal'],
      ['org.created', null],
    ]);
    expect(events[0]?.actor).toBe(ADMIN_ID);
    expect(events[3]).toMatchObject({ actor: 'system', action: 'org.created' });
    expect(JSON.stringify(events)).not.toContain(HARNESS_ADMIN_TOKEN);
    const first = (await admin('GET', '/admin/v1/audit?org=trail&limit=3')).json<{ events: AuditEventView[]; next_cursor: string }>();
    const rest = (await admin('GET', `/admin/v1/audit?org=trail&limit=3&cursor=${first.next_cursor}`)).json<{ events: AuditEventView[]; next_cursor: string | null }>();
    expect([...first.events, ...rest.events]).toEqual(events);
    expect(rest.next_cursor).toBeNull();
    expectError(await admin('GET', '/admin/v1/audit?limit=abc'), 400, 'invalid_input');
    expectError(await admin('GET', '/admin/v1/audit?since=yesterday'), 400, 'invalid_input');
    expectError(await admin('GET', '/admin/v1/audit?cursor=%7B%7D'), 400, 'invalid_input');
  });

  it('lists the routes in OpenAPI under the admin tag with the admin token scheme', async () => {
    const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { tags: string[]; security: Json[] }>> }>();
    for (const [method, url] of ROUTES) {
      const path = url.replace(/key_[0-9a-z]{26}/, '{id}');
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op?.tags, path).toEqual(['admin']);
      expect(JSON.stringify(op?.security)).toContain('adminToken');
    }
  });
});

describe.each(dialects)('operator API without GATEWAY_ADMIN_TOKEN (%s)', (dialect) => {
  it('does not exist: 404 and absent from /openapi.json', async () => {
    const h = await startHarness(dialect, { env: { GATEWAY_ADMIN_TOKEN: undefined } });
    try {
      for (const [method, url] of ROUTES) {
        const res = await h.request({ method, url, headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, ...(method === 'POST' ? { payload: {} } : {}) });
        expectError(res, 404, 'not_found');
      }
      const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).body;
      expect(doc).not.toContain('/admin/v1/');
    } finally {
      await h.close();
    }
  });
});
