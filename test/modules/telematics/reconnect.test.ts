import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OAUTH_CALLBACK_PATH } from '../../../src/modules/telematics/connect/connect.service.js';
import type { ManualClock } from '../../../src/platform/core/clock.js';
import { WRONG_PASSWORD } from '../../../src/sim/vendor-sim/context.js';
import type { VendorSim } from '../../../src/sim/vendor-sim.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness } from '../../support/harness.js';
import { startTelematicsRig, type TelematicsRig } from './telematics-support.js';

/**
 * Recovery from reauth_required: the operator issues a connect token for the existing connection, the fleet posts new
 * credentials (or gives consent again) and the same connection polls again where it stopped, sending nothing twice.
 */

type Json = Record<string, unknown>;
interface Connection {
  id: string;
  provider: string;
  label: string | null;
  status: string;
  credentials_hint: string | null;
  poll_interval_s: number;
  cursors: { snapshot_at: string | null; elements: Record<string, string> };
  breaker: { state: string; consecutive_failures: number; open_until: string | null };
  last_error: { message: string } | null;
  next_poll_at: string | null;
}
interface ConnectAnswer {
  ok: boolean;
  connection_id: string;
  provider: string;
  next_step?: { type: string; authorize_url: string; expires_at: string };
}

describe.each(dialects)('reconnect (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;
  let sim: VendorSim;
  let key: string;
  let clock: ManualClock;

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect);
    ({ h, sim, key, clock } = rig);
  });
  afterAll(() => rig.close());
  beforeEach(() => sim.setMode('*', { kind: 'up' }));

  const nextIp = () => rig.nextIp();
  const post = (payload: Json) => h.request({ method: 'POST', url: '/connect', remoteAddress: nextIp(), payload });
  const issue = (body: Json) =>
    h.request({ method: 'POST', url: '/admin/v1/connect-tokens', headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, payload: body });
  const reconnectToken = async (connection: string, org = 'acme') => {
    const r = await issue({ org, connection });
    expect(r.statusCode, r.body).toBe(201);
    return r.json<{ connect_token: string }>().connect_token;
  };
  const connect = async (provider: string, credentials?: Json) => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const r = await post({ connect_token, provider, ...(credentials ? { credentials } : {}) });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<ConnectAnswer>().connection_id;
  };
  const run = (id: string) => h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key });
  const read = async (id: string) => (await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key })).json<{ connection: Connection }>().connection;
  const row = (id: string) => h.gateway.database.db.selectFrom('telematics_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const connectionCount = async () => (await h.gateway.database.db.selectFrom('telematics_connections').select('id').execute()).length;
  const queuedIds = async (connectionId: string) =>
    (await h.gateway.database.db.selectFrom('outbox').select(['id', 'payload']).where('type', '=', 'telematics.event').execute())
      .filter((r) => (JSON.parse(r.payload) as { data: { connection_id: string } }).data.connection_id === connectionId)
      .map((r) => r.id);
  /** Polls once with the vendor refusing: the connection ends reauth_required and polls are refused. */
  const refuse = async (id: string, provider: string) => {
    sim.setMode(provider, { kind: 'reject' });
    expect((await run(id)).statusCode).toBe(409);
    sim.setMode(provider, { kind: 'up' });
    expect((await read(id)).status).toBe('reauth_required');
    const again = await run(id);
    expect(again.statusCode).toBe(409);
    expect(again.json<{ error: string }>().error).toMatch(/connect again/);
  };

  it('new credentials on the same connection: active, new hint, breaker closed, polls again without sending anything twice', async () => {
    const id = await connect('vendor1_livelink', { username: 'fleet@acme.example', password: 'old-pw' });
    const first = await run(id);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json<{ events_enqueued: number }>().events_enqueued).toBeGreaterThan(0);
    // Two vendor outages count against the breaker before the credentials are refused.
    sim.setMode('vendor1_livelink', { kind: 'fail', status: 503 });
    for (let i = 0; i < 2; i++) expect((await run(id)).statusCode).toBe(502);
    sim.setMode('vendor1_livelink', { kind: 'up' });
    await refuse(id, 'vendor1_livelink');
    const before = await read(id);
    expect(before.breaker.consecutive_failures).toBe(2);
    const sent = await queuedIds(id);
    const count = await connectionCount();

    const token = await reconnectToken(id);
    const r = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'new.manager@acme.example', password: 'new-pw' } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toEqual({ ok: true, connection_id: id, provider: 'vendor1_livelink' });
    expect(await connectionCount()).toBe(count);

    const after = await read(id);
    expect(after).toMatchObject({ id, status: 'active', credentials_hint: 'ne***@acme.example', label: before.label, poll_interval_s: before.poll_interval_s, next_poll_at: null });
    expect(after.breaker).toEqual({ state: 'closed', consecutive_failures: 0, open_until: null });
    expect(after.cursors).toEqual(before.cursors);
    expect(after.last_error, 'the last failure stays as history').toEqual(before.last_error);
    const stored = await row(id);
    expect(stored.cooldown_s).toBe(0);
    expect(JSON.parse(await h.gateway.vault.decrypt(stored.credentials_ciphertext ?? '', id))).toEqual({ username: 'new.manager@acme.example', password: 'new-pw' });

    // Nothing new at the vendor: the poll works and queues nothing already sent.
    const second = await run(id);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json<{ events_enqueued: number }>().events_enqueued).toBe(0);
    expect(await queuedIds(id)).toEqual(sent);
    clock.advance(3600_000);
    const later = await run(id);
    expect(later.json<{ events_enqueued: number }>().events_enqueued).toBeGreaterThan(0);
    const all = await queuedIds(id);
    expect(new Set(all).size).toBe(all.length);

    // The token is spent.
    const reused = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'x@acme.example', password: 'y' } });
    expect(reused.statusCode).toBe(409);
  });

  it('an API-key provider takes a new key; the label can be renamed on the way', async () => {
    const id = await connect('vendor13', { api_key: 'key-old-0001' });
    await refuse(id, 'vendor13');
    const token = await reconnectToken(id);
    const r = await post({ connect_token: token, provider: 'vendor13', credentials: { api_key: 'key-new-9876' }, label: 'Renamed yard' });
    expect(r.statusCode, r.body).toBe(200);
    expect(await read(id)).toMatchObject({ status: 'active', credentials_hint: '••••9876', label: 'Renamed yard' });
    expect((await run(id)).statusCode).toBe(200);
  });

  it('the token is fixed to the connection\'s provider: another -> 400 and the token stays usable', async () => {
    const id = await connect('vendor1_livelink', { username: 'fleet@acme.example', password: 'pw' });
    await refuse(id, 'vendor1_livelink');
    const issued = await issue({ org: 'acme', connection: id });
    expect(issued.json()).toMatchObject({ ok: true, org: 'acme', provider: 'vendor1_livelink', connection: id });
    const token = issued.json<{ connect_token: string }>().connect_token;
    const wrong = await post({ connect_token: token, provider: 'vendor6_lida', credentials: { username: 'fleet@acme.example', password: 'pw' } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json<{ error: string }>().error).toMatch(/reconnects a vendor1_livelink connection, not vendor6_lida/);
    const right = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'fleet@acme.example', password: 'pw2' } });
    expect(right.statusCode, right.body).toBe(200);
  });

  it('issuing: another org\'s connection or an unknown one -> 404; a provider other than the connection\'s -> 400', async () => {
    const id = await connect('vendor1_livelink', { username: 'fleet@acme.example', password: 'pw' });
    const otherOrg = await issue({ org: 'other', connection: id });
    expect(otherOrg.statusCode).toBe(404);
    expect(otherOrg.json()).toMatchObject({ ok: false, code: 'not_found' });
    expect((await issue({ org: 'acme', connection: 'con_doesnotexist' })).statusCode).toBe(404);
    const mismatch = await issue({ org: 'acme', connection: id, provider: 'vendor13' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json<{ error: string }>().error).toMatch(/vendor1_livelink connection/);
    const same = await issue({ org: 'acme', connection: id, provider: 'vendor1_livelink' });
    expect(same.statusCode, same.body).toBe(201);
    // A plain token names no connection.
    expect((await issue({ org: 'acme' })).json()).toMatchObject({ connection: null });
  });

  it('the vendor refusing the new credentials -> 422; the connection stays reauth_required and the token usable', async () => {
    const id = await connect('vendor1_livelink', { username: 'fleet@acme.example', password: 'pw' });
    await refuse(id, 'vendor1_livelink');
    const before = await row(id);
    const token = await reconnectToken(id);
    const refused = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'other@acme.example', password: WRONG_PASSWORD } });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toMatchObject({ ok: false, code: 'credentials_rejected' });
    expect(await row(id)).toEqual(before);
    sim.setMode('vendor1_livelink', { kind: 'fail', status: 503 });
    expect((await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'other@acme.example', password: 'pw' } })).statusCode).toBe(502);
    expect(await row(id)).toEqual(before);
    sim.setMode('vendor1_livelink', { kind: 'up' });
    const ok = await post({ connect_token: token, provider: 'vendor1_livelink', credentials: { username: 'other@acme.example', password: 'pw' } });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await read(id)).status).toBe('active');
  });

  it('20 concurrent posts of one reconnect token: exactly one 200, the rest 409', async () => {
    const id = await connect('vendor13', { api_key: 'key-race-0000' });
    await refuse(id, 'vendor13');
    const token = await reconnectToken(id);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post({ connect_token: token, provider: 'vendor13', credentials: { api_key: `key-race-${String(i).padStart(4, '0')}` } })),
    );
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(19);
    // The winner's key is the one stored.
    const winner = answers.findIndex((a) => a.statusCode === 200);
    expect((await read(id)).credentials_hint).toBe(`••••${String(winner).padStart(4, '0')}`);
  });

  it.each(['vendor11_operations_center', 'vendor12_fieldops'])('%s: a reconnect is a new consent on the same connection', async (provider) => {
    const consent = async (answer: ConnectAnswer) => {
      const back = await fetch(answer.next_step?.authorize_url ?? '', { redirect: 'manual' });
      expect(back.status).toBe(302);
      const location = new URL(back.headers.get('location') ?? '');
      expect(location.pathname).toBe(OAUTH_CALLBACK_PATH);
      return h.request({ method: 'GET', url: location.pathname + location.search });
    };
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme', provider });
    const started = await post({ connect_token, provider });
    expect(started.statusCode, started.body).toBe(200);
    const id = started.json<ConnectAnswer>().connection_id;
    expect((await consent(started.json<ConnectAnswer>())).statusCode).toBe(200);
    const first = await run(id);
    expect(first.statusCode, first.body).toBe(200);
    await refuse(id, provider);
    const before = await read(id);
    const sent = await queuedIds(id);

    const token = await reconnectToken(id);
    const r = await post({ connect_token: token, provider });
    expect(r.statusCode, r.body).toBe(200);
    const answer = r.json<ConnectAnswer>();
    expect(answer).toMatchObject({ ok: true, connection_id: id, provider, next_step: { type: 'oauth_consent' } });
    expect(answer.next_step?.authorize_url.startsWith(`${sim.url}/${provider}/`)).toBe(true);
    const pending = await read(id);
    expect(pending).toMatchObject({ status: 'pending_consent', breaker: { state: 'closed', consecutive_failures: 0, open_until: null }, next_poll_at: null });
    expect((await row(id)).oauth_tokens_ciphertext).toBeNull();
    expect((await run(id)).statusCode).toBe(409);

    const page = await consent(answer);
    expect(page.statusCode, page.body).toBe(200);
    const after = await read(id);
    expect(after).toMatchObject({ id, status: 'active' });
    expect(after.cursors).toEqual(before.cursors);
    const again = await run(id);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json<{ events_enqueued: number }>().events_enqueued).toBe(0);
    expect(await queuedIds(id)).toEqual(sent);
  });
});
