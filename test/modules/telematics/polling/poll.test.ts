import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAILURES_TO_OPEN } from '../../../../src/modules/telematics/polling/breaker.js';
import type { HubSim } from '../../../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../../../../src/sim/vendor-sim.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { credentialsFor, startTelematicsRig, type TelematicsRig } from '../telematics-support.js';

type Json = Record<string, unknown>;
interface Connection {
  id: string;
  status: string;
  cursors: { snapshot_at: string | null; elements: Record<string, string> };
  breaker: { state: string; consecutive_failures: number; open_until: string | null };
  last_run: { events: number; outcome: string } | null;
  last_error: { message: string } | null;
  next_poll_at: string | null;
}

const PROVIDERS_POLLED = ['vendor1_livelink', 'vendor5_visionlink', 'vendor13', 'vendor18_tyresense'];

describe.each(dialects)('telematics polling (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;
  let sim: VendorSim;
  let hub: HubSim;
  let key: string;

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect, { fleetSize: 7, pageSize: 3 });
    ({ h, sim, hub, key } = rig);
  });
  afterAll(() => rig.close());
  beforeEach(() => sim.setMode('*', { kind: 'up' }));

  const connect = (provider: string) => rig.connect(provider);
  const run = (id: string) => h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key });
  const read = async (id: string) => (await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key })).json<{ connection: Connection }>().connection;
  const queued = async (connectionId: string) =>
    (await h.gateway.database.db.selectFrom('outbox').select(['id', 'payload']).where('type', '=', 'telematics.event').execute())
      .map((r) => ({ id: r.id, event: (JSON.parse(r.payload) as { data: { connection_id: string; type: string; data: Json; observed_at: string } }).data }))
      .filter((r) => r.event.connection_id === connectionId);
  const drain = async () => {
    for (let n = await h.gateway.delivery.drainOnce(); n > 0; n = await h.gateway.delivery.drainOnce());
  };

  it.each(PROVIDERS_POLLED)('%s: polls, queues normalized events for the hub and moves the cursors', async (provider) => {
    const { connection_id } = await connect(provider);
    const first = await run(connection_id);
    expect(first.statusCode, first.body).toBe(200);
    const answer = first.json<{ events_enqueued: number; cursors: Connection['cursors'] }>();
    expect(answer.events_enqueued).toBeGreaterThanOrEqual(7);
    expect(answer.cursors.snapshot_at).toBe(h.clock.now().toISOString());
    const events = await queued(connection_id);
    expect(events).toHaveLength(answer.events_enqueued);
    for (const { id, event } of events) {
      expect(id).toMatch(/^tev_/);
      expect(event.observed_at).toMatch(/Z$/);
    }
    if (provider === 'vendor18_tyresense') expect(events.some((e) => e.event.type === 'tire_pressure' && (e.event.data as { unit: string }).unit === 'kPa')).toBe(true);
    const health = await read(connection_id);
    expect(health.cursors).toEqual(answer.cursors);
    expect(health.last_run).toMatchObject({ events: answer.events_enqueued, outcome: 'ok' });
    expect(health.breaker).toEqual({ state: 'closed', consecutive_failures: 0, open_until: null });
    expect(health.next_poll_at).not.toBeNull();

    // Nothing new at the vendor: nothing new for the hub.
    const again = await run(connection_id);
    expect(again.json<{ events_enqueued: number }>().events_enqueued).toBe(0);
    expect(await queued(connection_id)).toHaveLength(answer.events_enqueued);
    // An hour later the vendor has newer readings.
    h.clock.advance(3600_000);
    const later = await run(connection_id);
    expect(later.json<{ events_enqueued: number }>().events_enqueued).toBeGreaterThan(0);
  });

  it.each(['vendor11_operations_center', 'vendor12_fieldops'])('%s: after consent, polls with the OAuth access token', async (provider) => {
    const { connection_id, next_step } = await connect(provider);
    const consent = await fetch(next_step?.authorize_url ?? '', { redirect: 'manual' });
    const back = new URL(consent.headers.get('location') ?? '');
    expect((await h.request({ method: 'GET', url: back.pathname + back.search })).statusCode).toBe(200);
    const r = await run(connection_id);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json<{ events_enqueued: number }>().events_enqueued).toBeGreaterThanOrEqual(7);
    const events = await queued(connection_id);
    expect(new Set(events.map((e) => (e.event as unknown as { equipment: { id: string } }).equipment.id)).size).toBe(7);
    expect(sim.requests(provider).some((q) => q.path.includes('/api/machines') && q.status === 200)).toBe(true);
  });

  it('a poll of more readings than one batch sends them all (every machine, every type)', async () => {
    const big = await startVendorSim({ fleetSize: 120, pageSize: 25, now: () => h.clock.now() });
    const h2 = await startHarness(dialect, { env: { VENDOR_SIM_URL: big.url }, clock: h.clock });
    try {
      await h2.org('acme');
      const k = (await h2.key('acme', 'telematics:write')).key;
      const { connect_token } = await h2.gateway.services.connectTokens.issue({ org: 'acme' });
      const c = await h2.request({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor1_livelink', credentials: credentialsFor('vendor1_livelink') } });
      const id = c.json<{ connection_id: string }>().connection_id;
      const r = await h2.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key: k });
      const n = r.json<{ events_enqueued: number }>().events_enqueued;
      expect(n).toBeGreaterThan(500);
      const rows = await h2.gateway.database.db.selectFrom('outbox').select('payload').where('type', '=', 'telematics.event').execute();
      expect(rows).toHaveLength(n);
      const machines = new Set(rows.map((row) => (JSON.parse(row.payload) as { data: { equipment: { id: string } } }).data.equipment.id));
      expect(machines.size).toBe(120);
    } finally {
      await h2.close();
      await big.close();
    }
  });

  it('the events reach the hub once each by id', async () => {
    const { connection_id } = await connect('vendor13');
    await run(connection_id);
    await drain();
    const ids = (await queued(connection_id)).map((e) => e.id);
    const atHub = hub.events().filter((e) => ids.includes(e.id));
    expect(atHub).toHaveLength(ids.length);
    expect(atHub.every((e) => e.type === 'telematics.event')).toBe(true);
  });

  it("keeps the hub's per-event rejections on the connection, the newest 20", async () => {
    const { connection_id } = await connect('vendor13');
    hub.rejectType('telematics.event', 'unknown equipment');
    try {
      await run(connection_id);
      await drain();
    } finally {
      hub.rejectType(null);
    }
    const sent = (await queued(connection_id)).length;
    const kept = (await h.request({ method: 'GET', url: `/v1/telematics/connections/${connection_id}`, key })).json<{ connection: { last_hub_rejections: { event_id: string; reason: string }[] } }>()
      .connection.last_hub_rejections;
    expect(kept).toHaveLength(Math.min(20, sent));
    expect(kept[0]).toMatchObject({ reason: expect.stringContaining('unknown equipment') as unknown });
    expect(kept.every((r) => r.event_id.startsWith('tev_'))).toBe(true);
  });

  it('a failed poll leaves the cursors; five in a row open the breaker, a failed trial doubles its cooldown, a success closes it', async () => {
    const { connection_id } = await connect('vendor13');
    await run(connection_id);
    const before = (await read(connection_id)).cursors;
    sim.setMode('vendor13', { kind: 'fail', status: 503 });
    for (let i = 1; i <= FAILURES_TO_OPEN; i++) {
      h.clock.advance(1000);
      const r = await run(connection_id);
      expect(r.statusCode).toBe(502);
      const c = await read(connection_id);
      expect(c.cursors).toEqual(before);
      expect(c.breaker.consecutive_failures).toBe(i);
      expect(c.breaker.state).toBe(i < FAILURES_TO_OPEN ? 'closed' : 'open');
      expect(c.last_error?.message).toMatch(/vendor13/);
    }
    const opened = await read(connection_id);
    expect(Date.parse(opened.breaker.open_until ?? '') - h.clock.now().getTime()).toBe(60_000);
    h.clock.advance(61_000);
    expect((await run(connection_id)).statusCode).toBe(502);
    const reopened = await read(connection_id);
    expect(reopened.breaker.state).toBe('open');
    expect(Date.parse(reopened.breaker.open_until ?? '') - h.clock.now().getTime()).toBe(120_000);
    sim.setMode('vendor13', { kind: 'up' });
    h.clock.advance(121_000);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect((await read(connection_id)).breaker).toEqual({ state: 'closed', consecutive_failures: 0, open_until: null });
  });

  it('a vendor that refuses the stored credentials -> reauth_required, and no more polls (409 saying why)', async () => {
    const { connection_id } = await connect('vendor1_livelink');
    sim.setMode('vendor1_livelink', { kind: 'reject' });
    const refused = await run(connection_id);
    expect(refused.statusCode).toBe(409);
    expect((await read(connection_id)).status).toBe('reauth_required');
    sim.setMode('vendor1_livelink', { kind: 'up' });
    const again = await run(connection_id);
    expect(again.statusCode).toBe(409);
    expect(again.json<{ error: string }>().error).toMatch(/connect again/);
    const listed = await h.request({ method: 'GET', url: '/v1/telematics/connections?status=reauth_required', key });
    expect(listed.json<{ connections: Connection[] }>().connections.map((c) => c.id)).toContain(connection_id);
    const active = await h.request({ method: 'GET', url: '/v1/telematics/connections?status=active', key });
    expect(active.json<{ connections: Connection[] }>().connections.map((c) => c.id)).not.toContain(connection_id);
  });

  it('a poll already running -> 409; a pending consent cannot be polled', async () => {
    const { connection_id } = await connect('vendor13');
    sim.setMode('vendor13', { kind: 'slow', delayMs: 300 });
    const [a, b] = await Promise.all([run(connection_id), (async () => (await new Promise((r) => setTimeout(r, 50)), run(connection_id)))()]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const pending = await connect('vendor11_operations_center');
    const r = await run(pending.connection_id);
    expect(r.statusCode).toBe(409);
    expect(r.json<{ error: string }>().error).toMatch(/consent/);
  });
});
