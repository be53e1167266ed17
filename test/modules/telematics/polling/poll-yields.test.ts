import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { dialects, type Harness } from '../../../support/harness.js';
import { startTelematicsRig, type TelematicsRig } from '../telematics-support.js';

/** A fleet big enough for several pages, more events than one busy transaction (100) and more marks than one (250). */
const FLEET = 60;

/** Every provider family the poller reads: ISO 15143-3 in XML and in JSON, an aggregator's JSON list, a TPMS feed. */
const PROVIDERS = ['vendor1_livelink', 'vendor6_lida', 'vendor13', 'vendor18_tyresense'];

interface Queued {
  id: string;
  reading: string;
}

describe.each(dialects)('a scheduled poll yields to requests (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect, { fleetSize: FLEET, pageSize: 20 });
    ({ h } = rig);
  });
  afterAll(() => rig.close());
  beforeEach(async () => {
    // Each test starts with no due connection: the earlier ones' are paused out of the way.
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'paused' }).execute();
  });

  const polling = () => h.gateway.services.polling;
  const poller = () => h.gateway.services.poller;
  /** A connection's queued events: their ids, and each reading as the vendor gave it (connection-free, to compare two connections). */
  const queued = async (connectionId: string): Promise<Queued[]> =>
    (await h.gateway.database.db.selectFrom('outbox').select(['id', 'payload']).where('type', '=', 'telematics.event').execute())
      .map((r) => ({ id: r.id, event: (JSON.parse(r.payload) as { data: { connection_id: string; equipment: { id: string }; type: string; observed_at: string; data: unknown } }).data }))
      .filter((r) => r.event.connection_id === connectionId)
      .map(({ id, event }) => ({ id, reading: JSON.stringify([event.equipment.id, event.type, event.observed_at, event.data]) }));
  const connection = (id: string) => h.gateway.database.db.selectFrom('telematics_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const marks = async (id: string) => (await h.gateway.database.db.selectFrom('telematics_marks').select('mark').where('connection_id', '=', id).execute()).length;

  it.each(PROVIDERS)('%s: waits for its turn, then takes every reading once over many rounds, as a manual poll does', async (provider) => {
    // The twin is polled by hand (at once, no rounds) for the readings a poll should take from this fleet.
    const twin = (await rig.connect(provider)).connection_id;
    const manual = await h.request({ method: 'POST', url: `/v1/telematics/connections/${twin}/run`, key: rig.key });
    expect(manual.statusCode, manual.body).toBe(200);
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'paused' }).where('id', '=', twin).execute();
    const { connection_id } = await rig.connect(provider);

    const yields = polling().yields;
    const rounds = vi.spyOn(yields, 'end');
    let roundsTaken: number;
    h.gateway.requests.enter();
    try {
      // Another round of the polls' budget runs while a request is in flight: one round at a time, so the poll waits.
      const other = yields.begin();
      expect(other).toBeDefined();
      expect(await poller().tick()).toBe(1);
      await vi.waitFor(() => expect(yields.waiting).toBeGreaterThan(0));
      expect(await queued(connection_id), 'nothing written before its turn').toHaveLength(0);
      // That round took 100 ms: at share 0.2 the next may start 400 ms after it ended (the clock stands still meanwhile).
      h.clock.advance(100);
      if (other !== undefined) yields.end(other);
      expect(yields.waitMs()).toBe(400);
      expect(yields.waiting).toBeGreaterThan(0);
      h.clock.advance(400);
      await poller().idle();
    } finally {
      h.gateway.requests.leave();
      roundsTaken = rounds.mock.calls.length;
      rounds.mockRestore();
    }
    const row = await connection(connection_id);
    expect(row.last_run).toContain('"outcome":"ok"');
    const events = await queued(connection_id);
    // Every reading once: the same readings as the manual poll's, no id twice.
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.map((e) => e.reading).sort()).toEqual((await queued(twin)).map((e) => e.reading).sort());
    expect(JSON.parse(row.last_run ?? '{}')).toMatchObject({ events: events.length });
    expect(events.length, 'more events than one busy transaction holds').toBeGreaterThan(100);
    // Its reads and writes were rounds: more of them than one per page and one per transaction of a whole batch.
    expect(roundsTaken).toBeGreaterThan(Math.ceil(events.length / 100) + 3);
    // Every mark stored, over several transactions: a poll now, nothing new at the vendor, takes nothing.
    expect(await marks(connection_id)).toBe(await marks(twin));
    await h.gateway.database.db.updateTable('telematics_connections').set({ next_poll_at: h.clock.now().toISOString() }).where('id', '=', connection_id).execute();
    expect(await poller().tick()).toBe(1);
    await poller().idle();
    expect(JSON.parse((await connection(connection_id)).last_run ?? '{}')).toMatchObject({ outcome: 'ok', events: 0 });
    expect(await queued(connection_id)).toHaveLength(events.length);
  });

  it('with no request in flight another round of its budget holds nothing back', async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    const yields = polling().yields;
    const other = yields.begin();
    expect(other).toBeDefined();
    try {
      expect(await poller().tick()).toBe(1);
      await poller().idle();
      expect(yields.waiting).toBe(0);
    } finally {
      if (other !== undefined) yields.end(other);
    }
    expect((await connection(connection_id)).last_run).toContain('"outcome":"ok"');
    expect((await queued(connection_id)).length).toBeGreaterThan(0);
  });
});
