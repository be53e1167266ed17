import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAILURES_TO_OPEN } from '../../../src/modules/telematics/polling/breaker.js';
import { dialects } from '../../support/harness.js';
import { callMcp } from '../../support/operations.js';
import { startTelematicsRig, type TelematicsRig } from './telematics-support.js';

interface Connection {
  id: string;
  status: string;
  breaker: { state: string; open_until: string | null };
  next_poll_at: string | null;
  credentials_hint: string | null;
}

const LIFECYCLE = /^telematics\.connection\./;

describe.each(dialects)('telematics connection lifecycle (%s)', (dialect) => {
  let rig: TelematicsRig;

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect, { fleetSize: 3, pageSize: 2 });
  });
  afterAll(() => rig.close());
  beforeEach(() => rig.sim.setMode('*', { kind: 'up' }));

  // Each step a second after the last: the hub takes events in the order they happened, which a standing clock leaves open.
  const later = () => rig.clock.advance(1000);
  const run = (id: string) => (later(), rig.h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key: rig.key }));
  const disconnect = (id: string, key = rig.key) => (later(), rig.h.request({ method: 'DELETE', url: `/v1/telematics/connections/${id}`, key }));
  const read = async (id: string) => (await rig.h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key: rig.key })).json<{ connection: Connection }>().connection;
  /** The hub's lifecycle events of one connection, in the order the hub took them, after draining the outbox. */
  const heard = async (id: string) => {
    for (let n = await rig.h.gateway.delivery.drainOnce(); n > 0; n = await rig.h.gateway.delivery.drainOnce());
    return rig.hub
      .events()
      .filter((e) => LIFECYCLE.test(e.type) && (e.data as Connection).id === id)
      .map((e) => ({ type: e.type.replace('telematics.connection.', ''), status: (e.data as Connection).status }));
  };
  const row = (id: string) => rig.h.gateway.database.db.selectFrom('telematics_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('the hub hears a connection connected, its credentials refused, and reconnected', async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    expect(await heard(connection_id)).toEqual([{ type: 'connected', status: 'active' }]);

    rig.sim.setMode('vendor1_livelink', { kind: 'reject' });
    expect((await run(connection_id)).statusCode).toBe(409);
    expect(await heard(connection_id)).toEqual([
      { type: 'connected', status: 'active' },
      { type: 'reauth_required', status: 'reauth_required' },
    ]);

    rig.sim.setMode('vendor1_livelink', { kind: 'up' });
    later();
    const { connect_token } = await rig.h.gateway.services.connectTokens.issue({ org: 'acme', connection: connection_id });
    const again = await rig.h.request({ method: 'POST', url: '/connect', remoteAddress: rig.nextIp(), payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'fleet@acme.example', password: 'pw' } } });
    expect(again.statusCode, again.body).toBe(200);
    expect((await heard(connection_id)).map((e) => e.type)).toEqual(['connected', 'reauth_required', 'connected']);
  });

  it('the breaker opening is told once, and its closing when a poll succeeds again', async () => {
    const { connection_id } = await rig.connect('vendor13');
    rig.sim.setMode('vendor13', { kind: 'fail', status: 500 });
    for (let i = 0; i < FAILURES_TO_OPEN + 2; i++) {
      const failed = await run(connection_id);
      expect(failed.statusCode, failed.body).toBe(502);
      expect(failed.json()).toMatchObject({ code: 'vendor_error', details: { status: 500 } });
    }
    expect((await read(connection_id)).breaker.state).toBe('open');
    expect((await heard(connection_id)).map((e) => e.type)).toEqual(['connected', 'breaker_opened']);

    rig.sim.setMode('vendor13', { kind: 'up' });
    expect((await run(connection_id)).statusCode).toBe(200);
    expect((await read(connection_id)).breaker.state).toBe('closed');
    expect((await heard(connection_id)).map((e) => e.type)).toEqual(['connected', 'breaker_opened', 'breaker_closed']);
    // Closed and healthy: nothing more to tell.
    expect((await run(connection_id)).statusCode).toBe(200);
    expect(await heard(connection_id)).toHaveLength(3);
  });

  it('a run meeting a page that is not the feed answers vendor_document_invalid with the path', async () => {
    const { connection_id } = await rig.connect('vendor6_lida');
    rig.sim.setMode('vendor6_lida', { kind: 'maintenance_page' });
    const r = await run(connection_id);
    expect(r.statusCode, r.body).toBe(502);
    expect(r.json()).toMatchObject({ code: 'vendor_document_invalid', details: { path: '/Fleet/1' } });
    expect((await read(connection_id)).breaker).toMatchObject({ state: 'closed' });
  });

  it('DELETE disconnects: polling stops, credentials erased, the row kept, the hub told once', async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    expect((await run(connection_id)).statusCode).toBe(200);
    const from = new Date(rig.clock.now().getTime() - 3600_000).toISOString();
    const replay = await rig.h.request({ method: 'POST', url: `/v1/telematics/connections/${connection_id}/replay`, key: rig.key, payload: { from, to: rig.clock.now().toISOString() } });
    expect(replay.statusCode, replay.body).toBe(202);
    const syncId = replay.json<{ sync: { id: string } }>().sync.id;
    const r = await disconnect(connection_id);
    expect(r.statusCode, r.body).toBe(200);
    const shown = r.json<{ connection: Connection }>().connection;
    expect(shown).toMatchObject({ id: connection_id, status: 'disconnected', next_poll_at: null });
    expect(await read(connection_id)).toMatchObject({ status: 'disconnected' });
    const stored = await row(connection_id);
    expect(stored).toMatchObject({ status: 'disconnected', credentials_ciphertext: null, oauth_tokens_ciphertext: null, vendor_token_ciphertext: null, lease_owner: null, next_poll_at: null });
    // Its unfinished syncs end with it.
    const sync = await rig.h.request({ method: 'GET', url: `/v1/telematics/connections/${connection_id}/syncs/${syncId}`, key: rig.key });
    expect(sync.json()).toMatchObject({ sync: { status: 'cancelled', failure_reason: 'the connection was disconnected' } });

    // The poller never claims it, a run is refused, and a second DELETE answers it as it is without telling the hub again.
    rig.clock.advance(24 * 3600_000);
    await rig.h.gateway.services.poller.tick();
    await rig.h.gateway.services.poller.idle();
    expect((await row(connection_id)).last_run).toBe(stored.last_run);
    const refused = await run(connection_id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ error: string }>().error).toContain('disconnected');
    expect((await disconnect(connection_id)).json()).toMatchObject({ connection: { status: 'disconnected' } });
    expect((await heard(connection_id)).map((e) => e.type)).toEqual(['connected', 'disconnected']);

    const listed = await rig.h.request({ method: 'GET', url: '/v1/telematics/connections?status=disconnected', key: rig.key });
    expect(listed.json<{ connections: Connection[] }>().connections.map((c) => c.id)).toContain(connection_id);
    // Final: no reconnect token for it.
    await expect(rig.h.gateway.services.connectTokens.issue({ org: 'acme', connection: connection_id })).rejects.toMatchObject({ code: 'connection_not_active' });
  });

  it('a reconnect token issued before the disconnect is refused and not spent', async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    const { connect_token } = await rig.h.gateway.services.connectTokens.issue({ org: 'acme', connection: connection_id });
    expect((await disconnect(connection_id)).statusCode).toBe(200);
    const r = await rig.h.request({ method: 'POST', url: '/connect', remoteAddress: rig.nextIp(), payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'fleet@acme.example', password: 'pw' } } });
    expect(r.statusCode, r.body).toBe(409);
    expect((await row(connection_id)).status).toBe('disconnected');
  });

  it('disconnecting: 404 for an unknown or another org\'s connection, 403 without telematics:write, and the MCP tool does the same', async () => {
    const { connection_id } = await rig.connect('vendor13');
    expect((await disconnect('con_nope')).statusCode).toBe(404);
    const other = (await rig.h.key('other', 'telematics:read,telematics:write')).key;
    expect((await disconnect(connection_id, other)).statusCode).toBe(404);
    const readOnly = (await rig.h.key('acme', 'telematics:read')).key;
    expect((await disconnect(connection_id, readOnly)).statusCode).toBe(403);
    expect((await read(connection_id)).status).toBe('active');

    const byTool = await callMcp(rig.h, 'telematics_connections_disconnect', { connection_id }, rig.key);
    expect(byTool.isError, byTool.text).toBe(false);
    expect(byTool.payload).toMatchObject({ connection: { id: connection_id, status: 'disconnected' } });
    expect((await callMcp(rig.h, 'telematics_connections_disconnect', { connection_id: 'con_nope' }, rig.key)).status).toBe(404);
  });
});
