import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audienceOf, type Operation, takesIdempotencyKey } from '../../src/platform/operations/operation.js';
import { expectError } from '../support/auth-checks.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../support/harness.js';
import { rowChanges, rowCounts } from '../support/row-counts.js';
import { type Answer, type Call, callRest } from '../support/operations.js';
import { type Fixture, newConnection, PORTAL_FIXTURES, PORTAL_ORIGIN, portalKeyOf, seedOrg } from './fixtures.js';

type Json = Record<string, unknown>;

const unique = () => randomUUID().slice(0, 8);
const ADMIN = { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` };

/** For every write of the operator door: a call that succeeds for org `owner` (seeded). */
const OPERATOR_FIXTURES: Record<string, Fixture> = {
  orgs_create: () => Promise.resolve({ body: { slug: `org-${unique()}`, name: 'Idempotent Tires' } }),
  keys_create: () => Promise.resolve({ body: { org: 'owner', scopes: ['products:read'], name: 'hub sync' } }),
  keys_revoke: async (h) => ({ params: { id: (await h.key('owner', 'products:read')).id } }),
  keys_rotate: async (h) => ({ params: { id: (await h.key('owner', 'products:read')).id }, body: {} }),
  portal_keys_create: () => Promise.resolve({ body: { org: 'owner', dealer: 'Springfield Tire', origins: ['https://dealer.example'] } }),
  portal_keys_revoke: async (h) => ({ params: { id: (await h.gateway.services.portalKeys.create({ org: 'owner', dealer: 'D', origins: ['https://dealer.example'] })).id } }),
  connect_tokens_create: () => Promise.resolve({ body: { org: 'owner', label: 'North yard' } }),
  telematics_connections_reset_cursors: async (h, org) => ({ params: { connection_id: await newConnection(h, org) }, body: { org } }),
};

let ips = 0;
const nextIp = () => `10.88.${Math.floor(++ips / 250) % 250}.${(ips % 250) + 1}`;

/**
 * Idempotency-Key on the operator's and the dealer portal's writes: a retry after a lost answer changes nothing again.
 * A success holding a secret shown once (a key, a connect token, a webhook endpoint's secret) replays as 409
 * secret_shown_once naming what was made.
 */
describe.each(dialects)('Idempotency-Key on the operator and portal doors (%s)', (dialect) => {
  let h: Harness;
  let writes: Operation[];
  beforeAll(async () => {
    h = await startHarness(dialect);
    writes = h.gateway.operations.map((e) => e.operation).filter((op) => takesIdempotencyKey(op) && audienceOf(op) !== 'api');
    await seedOrg(h, 'owner');
  });
  afterAll(() => h.close());


  async function fixtureOf(op: Operation): Promise<Call> {
    const fixture = (audienceOf(op) === 'portal' ? PORTAL_FIXTURES : OPERATOR_FIXTURES)[op.name];
    if (!fixture) throw new Error(`${op.name} has no fixture`);
    return fixture(h, 'owner');
  }
  async function call(op: Operation, args: Call, idempotencyKey?: string): Promise<Answer> {
    const keyed: Record<string, string> = idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey };
    if (audienceOf(op) === 'operator') return callRest(h, op, args, undefined, { ...ADMIN, ...keyed });
    const res = await h.request({
      method: op.method,
      url: op.path,
      headers: { 'content-type': 'application/json', 'x-portal-key': await portalKeyOf(h, 'owner'), origin: PORTAL_ORIGIN, ...keyed },
      payload: JSON.stringify(args.body),
      remoteAddress: nextIp(),
    });
    const { ok: _ok, ...payload } = JSON.parse(res.body) as Json;
    return { status: res.statusCode, payload, headers: res.headers };
  }

  it('covers every write of the operator and portal doors (a new one is covered the day it exists)', () => {
    expect(writes.map((op) => op.name).sort()).toEqual(
      [
        'connect_tokens_create',
        'keys_create',
        'keys_revoke',
        'keys_rotate',
        'orgs_create',
        'portal_keys_create',
        'portal_keys_revoke',
        'portal_warranty_claims_create',
        'telematics_connections_reset_cursors',
      ].sort(),
    );
    // The public door's single-use connect token answers its own retries (409 token_used).
    expect(h.gateway.operations.map((e) => e.operation).filter((op) => audienceOf(op) === 'public' && takesIdempotencyKey(op))).toEqual([]);
  });

  it('a retry after a crash past the commit changes nothing again: the answer, or secret_shown_once naming what was made', async () => {
    for (const op of writes) {
      const what = op.name;
      // A first call unmeasured, so what only the first call makes (a claim-number counter) is made by then.
      await call(op, await fixtureOf(op), `first-${op.name}`);
      const once = await fixtureOf(op);
      const beforeOnce = await rowCounts(h);
      const answer = await call(op, once, `once-${op.name}`);
      expect(answer.status, `${what}: ${JSON.stringify(answer.payload)}`).toBe(op.status);
      const oneCall = rowChanges(beforeOnce, await rowCounts(h));

      const crashed = await fixtureOf(op);
      const before = await rowCounts(h);
      h.crashAfterCommit(op.name);
      expect((await call(op, crashed, `crash-${op.name}`)).status, `${what}: the crash`).toBe(500);
      const retry = await call(op, crashed, `crash-${op.name}`);
      expect(retry.headers['idempotent-replayed'], what).toBe('true');
      if (op.shownOnce) {
        expect(retry.status, `${what}: ${JSON.stringify(retry.payload)}`).toBe(409);
        expect(retry.payload, what).toMatchObject({ code: 'secret_shown_once', doc_url: 'docs/errors.md#secret_shown_once' });
      } else {
        expect(retry.status, `${what}: ${JSON.stringify(retry.payload)}`).toBe(op.status);
        expect(op.output.safeParse(retry.payload).error, what).toBeUndefined();
      }
      const replay = await call(op, crashed, `crash-${op.name}`);
      expect({ ...replay.payload, request_id: null }, what).toEqual({ ...retry.payload, request_id: null });
      expect(rowChanges(before, await rowCounts(h)), `${what}: rows written by the crashed call and its retry, against one call`).toEqual(oneCall);
    }
  });

  it('keys, rotations, portal keys and connect tokens: the secret once, a retry 409 secret_shown_once naming it, the secret stored nowhere', async () => {
    const admin = (method: 'POST' | 'GET', url: string, payload: unknown, key?: string) =>
      h.request({ method, url, headers: { ...ADMIN, ...(key === undefined ? {} : { 'idempotency-key': key }) }, ...(method === 'POST' ? { payload: payload as Json } : {}) });
    const keysOfOwner = async () => (await admin('GET', '/admin/v1/keys?org=owner&limit=500', undefined)).json<{ keys: { id: string }[] }>().keys.length;

    const count = await keysOfOwner();
    const body = { org: 'owner', scopes: ['orders:read'] };
    const first = await admin('POST', '/admin/v1/keys', body, 'issue-1');
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json<{ key: { id: string; key: string } }>().key;
    const retry = await admin('POST', '/admin/v1/keys', body, 'issue-1');
    expectError(retry, 409, 'secret_shown_once');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json<{ details: unknown }>().details).toEqual({ id: created.id });
    expect(retry.json<{ error: string }>().error).toContain(`POST /admin/v1/keys/${created.id}/revoke`);
    expect(retry.body).not.toContain(created.key);
    expect(await keysOfOwner()).toBe(count + 1);
    // The same key with another request is refused; without a key, each call issues its own.
    const reused = await admin('POST', '/admin/v1/keys', { ...body, name: 'other' }, 'issue-1');
    expectError(reused, 422, 'idempotency_key_reused');
    expect(reused.json<{ param: string }>().param).toBe('Idempotency-Key');
    expectError(await admin('POST', '/admin/v1/keys', body, 'has space'), 400, 'invalid_input');
    expect((await admin('POST', '/admin/v1/keys', body)).statusCode).toBe(201);
    expect((await admin('POST', '/admin/v1/keys', body)).statusCode).toBe(201);
    expect(await keysOfOwner()).toBe(count + 3);

    const rotated = (await admin('POST', `/admin/v1/keys/${created.id}/rotate`, {}, 'rotate-1')).json<{ key: { id: string; key: string } }>().key;
    const rotateAgain = await admin('POST', `/admin/v1/keys/${created.id}/rotate`, {}, 'rotate-1');
    expectError(rotateAgain, 409, 'secret_shown_once');
    expect(rotateAgain.json<{ details: unknown }>().details).toEqual({ id: rotated.id });

    const portal = await admin('POST', '/admin/v1/portal-keys', { org: 'owner', dealer: 'Shop', origins: ['https://shop.example'] }, 'portal-1');
    const portalKey = portal.json<{ portal_key: { id: string; key: string } }>().portal_key;
    const portalAgain = await admin('POST', '/admin/v1/portal-keys', { org: 'owner', dealer: 'Shop', origins: ['https://shop.example'] }, 'portal-1');
    expectError(portalAgain, 409, 'secret_shown_once');
    expect(portalAgain.json<{ details: unknown }>().details).toEqual({ id: portalKey.id });

    const token = (await admin('POST', '/admin/v1/connect-tokens', { org: 'owner' }, 'token-1')).json<{ connect_token: string; expires_at: string }>();
    const tokenAgain = await admin('POST', '/admin/v1/connect-tokens', { org: 'owner' }, 'token-1');
    expectError(tokenAgain, 409, 'secret_shown_once');
    expect(tokenAgain.json<{ details: unknown }>().details).toEqual({ expires_at: token.expires_at });

    const { rows } = await sql<{ response_body: string | null }>`select response_body from operator_idempotency_keys`.execute(h.gateway.database.db);
    const stored = rows.map((r) => r.response_body ?? '').join('\n');
    for (const secret of [created.key, rotated.key, portalKey.key, token.connect_token]) expect(stored).not.toContain(secret);
  });

  it('webhook endpoints: create and rotate-secret show the whsec_ secret once; a retry, after a crash too, is 409 naming the endpoint; no record keeps it', async () => {
    const apiKey = await seedOrg(h, 'owner');
    const api = (method: 'POST' | 'GET', url: string, idempotencyKey: string, payload?: Json) =>
      h.request({ method, url, key: apiKey, headers: { 'idempotency-key': idempotencyKey }, ...(payload === undefined ? {} : { payload }) });
    const endpointIds = async () => (await h.gateway.database.db.selectFrom('webhook_endpoints').select('id').execute()).map((r) => r.id);
    const body = { url: 'https://203.0.113.10/hooks', event_types: ['telematics.sync.failed'] };
    const secrets: string[] = [];
    const expectShownOnce = (res: Awaited<ReturnType<typeof api>>, id: string) => {
      const error = expectError(res, 409, 'secret_shown_once');
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(error.details).toEqual({ id });
      expect(error.error).toContain(`POST /v1/webhook-endpoints/${id}/rotate-secret`);
      for (const secret of secrets) expect(res.body).not.toContain(secret);
    };

    const count = (await endpointIds()).length;
    const first = await api('POST', '/v1/webhook-endpoints', 'hook-1', body);
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json<{ endpoint: { id: string }; secret: string }>();
    expect(created.endpoint.id).toMatch(/^whe_/);
    secrets.push(created.secret);
    expectShownOnce(await api('POST', '/v1/webhook-endpoints', 'hook-1', body), created.endpoint.id);
    expect((await endpointIds()).length).toBe(count + 1);

    const rotate = `/v1/webhook-endpoints/${created.endpoint.id}/rotate-secret`;
    const cipher = async () =>
      (await h.gateway.database.db.selectFrom('webhook_endpoints').select('secret_ciphertext').where('id', '=', created.endpoint.id).executeTakeFirstOrThrow()).secret_ciphertext;
    const rotated = await api('POST', rotate, 'rotate-hook-1');
    expect(rotated.statusCode, rotated.body).toBe(200);
    secrets.push(rotated.json<{ secret: string }>().secret);
    const afterRotation = await cipher();
    expectShownOnce(await api('POST', rotate, 'rotate-hook-1'), created.endpoint.id);
    // The replay rotated nothing: the secret of the first answer is still the endpoint's.
    expect(await cipher()).toBe(afterRotation);

    // After a crash past the commit, the record written in the transaction says the same.
    const known = new Set(await endpointIds());
    h.crashAfterCommit('webhook_endpoints_create');
    expect((await api('POST', '/v1/webhook-endpoints', 'hook-crash', body)).statusCode).toBe(500);
    const [crashedId, ...more] = (await endpointIds()).filter((id) => !known.has(id));
    expect(more).toEqual([]);
    expectShownOnce(await api('POST', '/v1/webhook-endpoints', 'hook-crash', body), crashedId ?? '');
    h.crashAfterCommit('webhook_endpoints_rotate_secret');
    expect((await api('POST', rotate, 'rotate-hook-crash')).statusCode).toBe(500);
    expectShownOnce(await api('POST', rotate, 'rotate-hook-crash'), created.endpoint.id);

    const { rows } = await sql<{ response_body: string | null }>`select response_body from idempotency_keys`.execute(h.gateway.database.db);
    const stored = rows.map((r) => r.response_body ?? '').join('\n');
    expect(stored).toContain('secret_shown_once');
    for (const secret of secrets) expect(stored).not.toContain(secret);
    expect(stored).not.toContain('whsec_');
  });

  it('an org created twice with one key is one org; the operator\'s keys are apart from every org\'s', async () => {
    const slug = `once-${unique()}`;
    const create = () => h.request({ method: 'POST', url: '/admin/v1/orgs', headers: { ...ADMIN, 'idempotency-key': 'shared-key-1' }, payload: { slug } });
    const first = await create();
    expect(first.statusCode, first.body).toBe(201);
    const again = await create();
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    // The same key string on an org's own write is that org's key, not the operator's.
    const apiKey = await seedOrg(h, 'owner');
    const product = await h.request({ method: 'POST', url: '/v1/products', key: apiKey, headers: { 'idempotency-key': 'shared-key-1' }, payload: { sku: `SH-${unique()}`, name: 'Shared key tire', stock_qty: 1 } });
    expect(product.statusCode, product.body).toBe(201);
    expect(product.headers['idempotent-replayed']).toBeUndefined();
  });

  it('portal claims: the same key files one claim, another body with it is 422, and a dealer page may send and read the fields', async () => {
    const key = await portalKeyOf(h, 'owner');
    const file = (payload: Json, idempotencyKey: string) =>
      h.request({
        method: 'POST',
        url: '/api/portal/v1/warranty-claims',
        headers: { 'x-portal-key': key, origin: PORTAL_ORIGIN, 'idempotency-key': idempotencyKey },
        payload,
        remoteAddress: nextIp(),
      });
    const claim = { description: 'Sidewall bulge', sku: 'TIRE-225', customer_ref: `INV-${unique()}`, contact_email: 'driver@example.com' };
    const first = await file(claim, 'claim-1');
    expect(first.statusCode, first.body).toBe(201);
    const again = await file(claim, 'claim-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json<{ claim_number: string }>().claim_number).toBe(first.json<{ claim_number: string }>().claim_number);
    expectError(await file({ ...claim, description: 'Another' }, 'claim-1'), 422, 'idempotency_key_reused');
    expectError(await file(claim, ''), 400, 'invalid_input');
    const preflight = await h.request({
      method: 'OPTIONS',
      url: '/api/portal/v1/warranty-claims',
      headers: { origin: PORTAL_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-portal-key, idempotency-key' },
      remoteAddress: nextIp(),
    });
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('idempotency-key');
    expect(String(again.headers['access-control-expose-headers'])).toContain('idempotent-replayed');
  });

  it('documents the header on every keyed operation of the operator and portal doors, and secret_shown_once where it answers', async () => {
    const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, unknown> }>> }>();
    for (const op of writes) {
      const path = op.path.replace(/:([a-z_]+)/g, '{$1}');
      const documented = doc.paths[path]?.[op.method.toLowerCase()];
      expect(documented?.parameters?.map((p) => p.$ref), op.name).toContain('#/components/parameters/IdempotencyKey');
      if (op.shownOnce) expect(JSON.stringify(documented?.responses['409']), op.name).toContain('secret_shown_once');
    }
  });
});
