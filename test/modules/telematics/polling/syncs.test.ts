import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HubSim } from '../../../../src/sim/hub-sim.js';
import type { VendorSim } from '../../../../src/sim/vendor-sim.js';
import { dialects, type Harness } from '../../../support/harness.js';
import { startTelematicsRig, type TelematicsRig } from '../telematics-support.js';

type Json = Record<string, unknown>;
interface Sync {
  id: string;
  connection_id: string;
  status: string;
  from: string;
  to: string;
  progress: { machines_done: number; machines_total: number; events_enqueued: number };
  failure_reason: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

const FLEET = 3;
/** ISO time-series data elements the reader maps: each machine's slices. */
const ELEMENTS = 9;
const DAY_MS = 86_400_000;

describe.each(dialects)('telematics replay syncs (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;
  let sim: VendorSim;
  let hub: HubSim;
  let key: string;

  beforeAll(async () => {
    // Four steps a claim: a sync of 3 machines (1 listing step + 27 slices) takes several rounds, so tests see it mid-way.
    rig = await startTelematicsRig(dialect, { fleetSize: FLEET, pageSize: 10, env: { SYNC_SLICES_PER_CLAIM: '4', SYNC_MAX_ATTEMPTS: '3' } });
    ({ h, sim, hub, key } = rig);
  });
  afterAll(() => rig.close());
  beforeEach(() => sim.setMode('*', { kind: 'up' }));

  const worker = () => h.gateway.services.syncWorker;
  const base = (id: string) => `/v1/telematics/connections/${id}`;
  const replay = (id: string, body: unknown, headers: Record<string, string> = {}, as = key) =>
    h.request({ method: 'POST', url: `${base(id)}/replay`, key: as, payload: body as Json, headers });
  const getSync = async (id: string, syncId: string) => {
    const r = await h.request({ method: 'GET', url: `${base(id)}/syncs/${syncId}`, key });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<{ sync: Sync }>().sync;
  };
  const cancel = (id: string, syncId: string, as = key) => h.request({ method: 'POST', url: `${base(id)}/syncs/${syncId}/cancel`, key: as });
  const lastDay = () => {
    const to = h.clock.now();
    return { from: new Date(to.getTime() - DAY_MS).toISOString(), to: to.toISOString() };
  };
  /** A queued sync of the last day of a new ISO connection. */
  const queuedSync = async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    const r = await replay(connection_id, lastDay());
    expect(r.statusCode, r.body).toBe(202);
    return { connection_id, sync: r.json<{ sync: Sync }>().sync };
  };
  /** One round of the worker: claims what it may and runs each claim's slices to its end. */
  const round = async () => {
    const started = await worker().tick();
    await worker().idle();
    return started;
  };
  /** Rounds until nothing is claimable (ended, or waiting to retry). */
  const rounds = async () => {
    while ((await round()) > 0);
  };
  const eventsOf = async (connectionId: string) =>
    (await h.gateway.database.db.selectFrom('outbox').select(['id', 'payload']).where('type', '=', 'telematics.event').execute()).filter(
      (r) => (JSON.parse(r.payload) as { data: { connection_id: string } }).data.connection_id === connectionId,
    );
  const drain = async () => {
    for (let n = await h.gateway.delivery.drainOnce(); n > 0; n = await h.gateway.delivery.drainOnce());
  };

  it('answers 202 with a queued sync; the worker runs it in slices to completed, every reading at the hub, then the completed event', async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    await h.request({ method: 'POST', url: `${base(connection_id)}/run`, key });
    const cursors = (await h.request({ method: 'GET', url: base(connection_id), key })).json<{ connection: { cursors: unknown } }>().connection.cursors;
    const window = lastDay();
    const r = await replay(connection_id, window, { 'idempotency-key': 'sync-once' });
    expect(r.statusCode, r.body).toBe(202);
    const queued = r.json<{ sync: Sync }>().sync;
    expect(queued).toMatchObject({
      id: expect.stringMatching(/^syn_/) as unknown,
      connection_id,
      status: 'queued',
      from: window.from,
      to: window.to,
      progress: { machines_done: 0, machines_total: 0, events_enqueued: 0 },
      failure_reason: null,
      started_at: null,
      finished_at: null,
    });
    // The same key replays the 202: the same sync, no second one.
    const again = await replay(connection_id, window, { 'idempotency-key': 'sync-once' });
    expect(again.statusCode).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json<{ sync: Sync }>().sync.id).toBe(queued.id);

    expect(await round()).toBe(1);
    const midway = await getSync(connection_id, queued.id);
    expect(midway.status).toBe('running');
    expect(midway.started_at).toBe(h.clock.now().toISOString());
    expect(midway.progress.machines_total).toBe(FLEET);
    expect(midway.progress.events_enqueued).toBeGreaterThan(0);

    await rounds();
    const done = await getSync(connection_id, queued.id);
    expect(done).toMatchObject({ status: 'completed', failure_reason: null, progress: { machines_done: FLEET, machines_total: FLEET } });
    expect(done.finished_at).not.toBeNull();
    // 25 hourly readings a machine and element over a day (both ends), fewer for fault codes (only when present).
    expect(done.progress.events_enqueued).toBeGreaterThan(FLEET * (ELEMENTS - 1) * 24);
    const list = await h.request({ method: 'GET', url: `${base(connection_id)}/syncs`, key });
    expect(list.json<{ syncs: Sync[] }>().syncs).toEqual([done]);
    const after = (await h.request({ method: 'GET', url: base(connection_id), key })).json<{ connection: { cursors: unknown } }>().connection.cursors;
    expect(after, 'a replay leaves the cursors as they were').toEqual(cursors);

    await drain();
    const atHub = hub.events().filter((e) => e.type === 'telematics.event' && (e.data as { connection_id: string }).connection_id === connection_id);
    const queuedIds = new Set((await eventsOf(connection_id)).map((e) => e.id));
    expect(queuedIds.size).toBeGreaterThanOrEqual(done.progress.events_enqueued);
    expect(new Set(atHub.map((e) => e.id)), 'every event queued (the poll\'s and the sync\'s) reached the hub').toEqual(queuedIds);
    const lifecycle = hub.events().filter((e) => e.type.startsWith('telematics.sync.'));
    expect(lifecycle.filter((e) => (e.data as Sync).id === queued.id)).toEqual([expect.objectContaining({ type: 'telematics.sync.completed', data: done })]);
  });

  it('a second sync of the same window sends the same event ids: the hub takes none of them as new', async () => {
    const { connection_id, sync } = await queuedSync();
    await rounds();
    await drain();
    const ids = (await eventsOf(connection_id)).map((e) => e.id);
    const { accepted, duplicates } = hub.stats();
    // Delivered rows purged (as retention does), so the second sync really goes to the hub again.
    await h.gateway.database.db.deleteFrom('outbox').where('id', 'in', ids).execute();
    const again = await replay(connection_id, { from: sync.from, to: sync.to });
    await rounds();
    expect((await getSync(connection_id, again.json<{ sync: Sync }>().sync.id)).progress.events_enqueued).toBe(ids.length);
    await drain();
    expect(hub.stats().duplicates - duplicates, 'the hub was sent every event again').toBe(ids.length);
    expect(hub.stats().accepted - accepted, 'and took only the second sync.completed as new').toBe(1);
  });

  it('resumes from its last slice when its holder dies: nothing read twice into the count, the same readings at the end', async () => {
    const { connection_id, sync } = await queuedSync();
    await round();
    const before = await getSync(connection_id, sync.id);
    const { db } = h.gateway.database;
    // Another process claims it and dies mid-slice: its claim holds until it runs out.
    await db.updateTable('telematics_syncs').set({ lease_owner: 'sync:dead-host:1:x', lease_until: new Date(h.clock.now().getTime() + 60_000).toISOString() }).where('id', '=', sync.id).execute();
    expect(await round(), 'held by the dead process until its claim runs out').toBe(0);
    h.clock.advance(60_000);
    await rounds();
    const done = await getSync(connection_id, sync.id);
    expect(done.status).toBe('completed');
    expect(done.progress.events_enqueued).toBeGreaterThan(before.progress.events_enqueued);
    // Every event queued once: the count is the rows, so no slice was counted twice.
    expect((await eventsOf(connection_id)).length).toBe(done.progress.events_enqueued);
  });

  it('the connection is polled as usual while a sync of it runs: the sync holds its own claim, not the poll lease', async () => {
    const { connection_id, sync } = await queuedSync();
    await round();
    expect((await getSync(connection_id, sync.id)).status).toBe('running');
    const connection = await h.gateway.database.db.selectFrom('telematics_connections').select(['lease_owner']).where('id', '=', connection_id).executeTakeFirstOrThrow();
    expect(connection.lease_owner).toBeNull();
    const run = await h.request({ method: 'POST', url: `${base(connection_id)}/run`, key });
    expect(run.statusCode, run.body).toBe(200);
    expect(await h.gateway.services.poller.tick()).toBeGreaterThanOrEqual(0);
    await h.gateway.services.poller.idle();
    await rounds();
    expect((await getSync(connection_id, sync.id)).status).toBe('completed');
  });

  it('cancel ends a running sync at once and the worker writes no further slice; a second cancel is 409', async () => {
    const { connection_id, sync } = await queuedSync();
    await round();
    const midway = await getSync(connection_id, sync.id);
    const r = await cancel(connection_id, sync.id);
    expect(r.statusCode, r.body).toBe(200);
    const cancelled = r.json<{ sync: Sync }>().sync;
    expect(cancelled).toMatchObject({ status: 'cancelled', progress: midway.progress, finished_at: h.clock.now().toISOString() });
    expect(await round()).toBe(0);
    expect(await getSync(connection_id, sync.id)).toEqual(cancelled);
    expect((await eventsOf(connection_id)).length).toBe(midway.progress.events_enqueued);
    const again = await cancel(connection_id, sync.id);
    expect(again.statusCode).toBe(409);
    expect(again.json<{ error: string }>().error).toMatch(/already ended \(cancelled\)/);
    // A queued sync is cancelled before it starts; a completed one cannot be.
    const queued = await queuedSync();
    expect((await cancel(queued.connection_id, queued.sync.id)).json<{ sync: Sync }>().sync).toMatchObject({ status: 'cancelled', started_at: null });
    const finished = await queuedSync();
    await rounds();
    expect((await cancel(finished.connection_id, finished.sync.id)).statusCode).toBe(409);
  });

  it('a holder whose sync was cancelled mid-slice writes nothing of that slice', async () => {
    const { connection_id, sync } = await queuedSync();
    await round();
    const row = await h.gateway.database.db.selectFrom('telematics_syncs').selectAll().where('id', '=', sync.id).executeTakeFirstOrThrow();
    const held = { ...row, status: 'running' as const, lease_owner: worker().owner };
    await h.gateway.database.db.updateTable('telematics_syncs').set({ lease_owner: worker().owner }).where('id', '=', sync.id).execute();
    await cancel(connection_id, sync.id);
    const queuedBefore = (await eventsOf(connection_id)).length;
    expect(await h.gateway.services.syncs.step(held, worker().owner)).toBeUndefined();
    expect((await eventsOf(connection_id)).length).toBe(queuedBefore);
    expect((await getSync(connection_id, sync.id)).status).toBe('cancelled');
  });

  it('fails with the reason when the vendor refuses the credentials, and tells the hub', async () => {
    const { connection_id, sync } = await queuedSync();
    sim.setMode('vendor1_livelink', { kind: 'reject' });
    await rounds();
    const failed = await getSync(connection_id, sync.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toMatch(/credentials|refused/i);
    expect(failed.finished_at).not.toBeNull();
    await drain();
    expect(hub.events().filter((e) => e.type === 'telematics.sync.failed' && (e.data as Sync).id === sync.id)).toEqual([expect.objectContaining({ data: failed })]);
  });

  it('retries a vendor outage later, and fails once the attempts are spent', async () => {
    const { connection_id, sync } = await queuedSync();
    await round();
    const midway = await getSync(connection_id, sync.id);
    sim.setMode('vendor1_livelink', { kind: 'fail', status: 503 });
    await round();
    expect((await getSync(connection_id, sync.id)).status, 'waiting to retry').toBe('running');
    expect(await round(), 'not before its retry time').toBe(0);
    // Back up before the next try: it goes on from where it was.
    sim.setMode('vendor1_livelink', { kind: 'up' });
    h.clock.advance(30_000);
    expect(await round()).toBe(1);
    expect((await getSync(connection_id, sync.id)).progress.events_enqueued).toBeGreaterThan(midway.progress.events_enqueued);
    // Down for good: three failed tries in a row end it.
    sim.setMode('vendor1_livelink', { kind: 'fail', status: 503 });
    for (let i = 0; i < 3; i += 1) {
      await rounds();
      h.clock.advance(120_000);
    }
    const failed = await getSync(connection_id, sync.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toMatch(/vendor1_livelink.*gave up after 3 attempts/);
  });

  describe('bad input', () => {
    it.each([
      [{ from: '2026-05-02T00:00:00Z', to: '2026-05-01T00:00:00Z' }, /from must be before to/],
      [{ from: '2026-04-01T00:00:00Z', to: '2026-05-15T00:00:00Z' }, /at most 31 days/],
      [{ from: '2026-05-01T00:00:00', to: '2026-05-02T00:00:00Z' }, /with a zone/],
      [{ from: '2026-06-01T00:00:00Z', to: '2026-06-30T00:00:00Z' }, /future/],
      [{ from: '2026-05-01T00:00:00Z' }, /to/],
    ])('refuses %j with 400 saying which rule', async (body, message) => {
      const { connection_id } = await rig.connect('vendor1_livelink');
      const r = await replay(connection_id, body);
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json<{ error: string }>().error).toMatch(message);
    });

    it('a 31-day sync writes a slice of more events than one transaction takes in several, each event once', { timeout: 120_000 }, async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    const to = h.clock.now();
    const r = await replay(connection_id, { from: new Date(to.getTime() - 31 * DAY_MS).toISOString(), to: to.toISOString() });
    expect(r.statusCode, r.body).toBe(202);
    await rounds();
    const done = await getSync(connection_id, r.json<{ sync: Sync }>().sync.id);
    expect(done.status).toBe('completed');
    const events = await eventsOf(connection_id);
    expect(events).toHaveLength(done.progress.events_enqueued);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const perSlice = new Map<string, number>();
    for (const e of events) {
      const data = (JSON.parse(e.payload) as { data: { equipment: { id: string }; type: string } }).data;
      const slice = `${data.equipment.id} ${data.type}`;
      perSlice.set(slice, (perSlice.get(slice) ?? 0) + 1);
    }
    // More than SLICE_WRITE_CHUNK (400) events in a slice: written in more than one transaction.
    expect(Math.max(...perSlice.values())).toBeGreaterThan(400);
  });

  it('yields to requests: while one is in flight its work waits for its turn in its share; with none it runs freely', async () => {
    const { connection_id, sync } = await queuedSync();
    const yields = h.gateway.services.syncs.yields;
    const progress = async () => (await getSync(connection_id, sync.id)).progress;
    h.gateway.requests.enter();
    try {
      // Another round of the sync's budget runs: while a request is in flight, one round at a time, so the sync waits.
      const other = yields.begin();
      expect(other).toBeDefined();
      const running = round();
      await vi.waitFor(() => expect(yields.waiting).toBeGreaterThan(0));
      expect(await progress()).toEqual({ machines_done: 0, machines_total: 0, events_enqueued: 0 });
      // That round took 100 ms: at share 0.2 the next may start 400 ms after it ended, not before (the clock stands still).
      h.clock.advance(100);
      if (other !== undefined) yields.end(other);
      expect(yields.waitMs()).toBe(400);
      expect(yields.waiting).toBeGreaterThan(0);
      expect(await progress()).toEqual({ machines_done: 0, machines_total: 0, events_enqueued: 0 });
      h.clock.advance(400);
      // Its turn: its rounds take no time on this clock, so they follow each other through the claim's slices.
      await running;
      expect((await progress()).machines_total).toBe(FLEET);
      expect((await progress()).events_enqueued).toBeGreaterThan(0);
    } finally {
      h.gateway.requests.leave();
    }
    // No request in flight: another round running holds nothing back, and the sync runs to its end.
    const other = yields.begin();
    expect(other).toBeDefined();
    await rounds();
    if (other !== undefined) yields.end(other);
    expect(yields.waiting).toBe(0);
    expect(await getSync(connection_id, sync.id)).toMatchObject({ status: 'completed', progress: { machines_done: FLEET, machines_total: FLEET } });
  });

  it('a window of exactly 31 days is taken', async () => {
      const { connection_id } = await rig.connect('vendor1_livelink');
      const to = h.clock.now();
      const r = await replay(connection_id, { from: new Date(to.getTime() - 31 * DAY_MS).toISOString(), to: to.toISOString() });
      expect(r.statusCode, r.body).toBe(202);
    });

    it('a provider without history -> 422, and no sync', async () => {
      const { connection_id } = await rig.connect('vendor13');
      const r = await replay(connection_id, lastDay());
      expect(r.statusCode).toBe(422);
      expect(r.json<{ error: string }>().error).toMatch(/no history/);
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs`, key })).json<{ syncs: Sync[] }>().syncs).toEqual([]);
    });

    it('unknown connection or sync -> 404', async () => {
      const { connection_id, sync } = await queuedSync();
      expect((await replay('con_unknown', lastDay())).statusCode).toBe(404);
      expect((await h.request({ method: 'GET', url: `${base('con_unknown')}/syncs`, key })).statusCode).toBe(404);
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs/syn_unknown`, key })).statusCode).toBe(404);
      expect((await cancel(connection_id, 'syn_unknown')).statusCode).toBe(404);
      // A sync named under another connection of the org is not found there.
      const other = await rig.connect('vendor1_livelink');
      expect((await h.request({ method: 'GET', url: `${base(other.connection_id)}/syncs/${sync.id}`, key })).statusCode).toBe(404);
    });

    it("another org's connection and syncs are a 404: read, list, replay, cancel", async () => {
      const { connection_id, sync } = await queuedSync();
      const otherKey = (await h.key('other', 'telematics:read,telematics:write')).key;
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs`, key: otherKey })).statusCode).toBe(404);
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs/${sync.id}`, key: otherKey })).statusCode).toBe(404);
      expect((await replay(connection_id, lastDay(), {}, otherKey)).statusCode).toBe(404);
      expect((await cancel(connection_id, sync.id, otherKey)).statusCode).toBe(404);
      expect((await getSync(connection_id, sync.id)).status).toBe('queued');
    });

    it('lists newest first, a page at a time, and by status', async () => {
      const { connection_id } = await rig.connect('vendor1_livelink');
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        h.clock.advance(1000);
        ids.push((await replay(connection_id, lastDay())).json<{ sync: Sync }>().sync.id);
      }
      await cancel(connection_id, ids[0] ?? '');
      const first = (await h.request({ method: 'GET', url: `${base(connection_id)}/syncs?limit=2`, key })).json<{ syncs: Sync[]; next_cursor: string | null }>();
      expect(first.syncs.map((s) => s.id)).toEqual([ids[2], ids[1]]);
      const second = (await h.request({ method: 'GET', url: `${base(connection_id)}/syncs?limit=2&cursor=${first.next_cursor ?? ''}`, key })).json<{ syncs: Sync[]; next_cursor: string | null }>();
      expect(second).toMatchObject({ syncs: [expect.objectContaining({ id: ids[0], status: 'cancelled' })], next_cursor: null });
      const cancelled = (await h.request({ method: 'GET', url: `${base(connection_id)}/syncs?status=cancelled`, key })).json<{ syncs: Sync[] }>();
      expect(cancelled.syncs.map((s) => s.id)).toEqual([ids[0]]);
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs?status=done`, key })).statusCode).toBe(400);
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs?limit=0`, key })).statusCode).toBe(400);
      expect((await h.request({ method: 'GET', url: `${base(connection_id)}/syncs?cursor=nonsense`, key })).statusCode).toBe(400);
    });

    it('a paused connection cannot be replayed (409)', async () => {
      const { connection_id } = await rig.connect('vendor1_livelink');
      await h.gateway.services.connections.setPolling(connection_id, { pause: true });
      const r = await replay(connection_id, lastDay());
      expect(r.statusCode).toBe(409);
      expect(r.json<{ error: string }>().error).toMatch(/paused/);
    });
  });
});
