import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { VendorDocumentInvalidError } from '../../../../src/modules/telematics/providers/adapter.js';
import { iso15143Reader } from '../../../../src/modules/telematics/providers/iso15143/reader.js';
import { ManualClock } from '../../../../src/platform/core/clock.js';
import type { AuditEventView } from '../../../../src/platform/audit/audit.schemas.js';
import { expectError } from '../../../support/auth-checks.js';
import { useInProcessCli } from '../../../support/cli.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness } from '../../../support/harness.js';
import { credentialsFor, startTelematicsRig, type TelematicsRig } from '../telematics-support.js';

/**
 * Nothing lost, nothing invented: marks per machine and data element (a late machine, a machine added with older
 * readings), readings stamped in the future refused and counted in the connection's issues, and the operator's reset.
 */

interface Queued {
  id: string;
  equipment: string;
  type: string;
  observed_at: string;
}
interface Cursors {
  snapshot_at: string | null;
  machines: number;
  oldest_mark: string | null;
  newest_mark: string | null;
}
interface Issue {
  kind: string;
  detail: string;
  count: number;
  first_seen: string;
  last_seen: string;
}
interface Connection {
  id: string;
  cursors: Cursors;
  issues: Issue[];
}

const PROVIDER = 'vendor1_livelink';
/** The Basic user name the rig connects with: the account the simulator's quirks are set for. */
const ACCOUNT = 'fleet@acme.example';
const MIN = 60_000;
const T0 = '2026-06-01T12:00:00.000Z';
const ADMIN_ID = `admin:${createHash('sha256').update(HARNESS_ADMIN_TOKEN).digest('hex').slice(0, 8)}`;
const NO_CURSORS: Cursors = { snapshot_at: null, machines: 0, oldest_mark: null, newest_mark: null };

/** Machine index i of the simulator's fleet is `vendor1-000<i+1>`, reporting on a 10-minute grid less 7 minutes per index. */
const machine = (index: number) => `vendor1-${String(index + 1).padStart(4, '0')}`;
const at = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * MIN).toISOString();

describe.each(dialects)('telematics marks (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;
  // The vendor's clock: moved with the gateway's, except where a test needs the gateway's time alone to pass.
  const vendorClock = new ManualClock(new Date(T0));

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect, { fleetSize: 5, pageSize: 2, simClock: vendorClock });
    ({ h } = rig);
  });
  afterAll(() => rig.close());
  beforeEach(() => rig.sim.setFleet(PROVIDER, ACCOUNT, {}));

  const quirks = (readings: object) => rig.sim.setFleet(PROVIDER, ACCOUNT, { readings });
  const advance = (ms: number) => {
    rig.clock.advance(ms);
    vendorClock.advance(ms);
  };
  const run = async (id: string) => {
    const r = await h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key: rig.key });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<{ events_enqueued: number; cursors: Cursors }>();
  };
  const read = async (id: string) => (await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key: rig.key })).json<{ connection: Connection }>().connection;
  const queued = async (id: string): Promise<Queued[]> =>
    (await h.gateway.database.db.selectFrom('outbox').select(['id', 'payload']).where('type', '=', 'telematics.event').execute())
      .map((r) => ({ id: r.id, e: (JSON.parse(r.payload) as { data: { connection_id: string; equipment: { id: string }; type: string; observed_at: string } }).data }))
      .filter((r) => r.e.connection_id === id)
      .map((r) => ({ id: r.id, equipment: r.e.equipment.id, type: r.e.type, observed_at: new Date(r.e.observed_at).toISOString() }));
  const marksOf = (id: string, equipment: string) =>
    h.gateway.database.db.selectFrom('telematics_marks').select(['element', 'mark']).where('connection_id', '=', id).where('equipment_id', '=', equipment).execute();
  const admin = (url: string, payload: unknown, authorization = `Bearer ${HARNESS_ADMIN_TOKEN}`) =>
    h.request({ method: 'POST', url, payload: payload as object, headers: { authorization } });
  const reset = (id: string, org = 'acme') => admin(`/admin/v1/telematics/connections/${id}/reset-cursors`, { org });
  const drain = async () => {
    for (let n = await h.gateway.delivery.drainOnce(); n > 0; n = await h.gateway.delivery.drainOnce());
  };
  const connect = async () => (await rig.connect(PROVIDER)).connection_id;

  it("a late machine's reading is sent though the rest of the fleet reported later", async () => {
    quirks({ late: { machine: 3, minutes: 180 } });
    const id = await connect();
    await run(id);
    const late = (await queued(id)).filter((e) => e.equipment === machine(3));
    expect(new Set(late.map((e) => e.observed_at))).toEqual(new Set([at(T0, -21 - 180)]));
    const fleetNewest = (await read(id)).cursors.newest_mark ?? '';
    advance(60 * MIN);
    const second = await run(id);
    const caughtUp = (await queued(id)).filter((e) => e.equipment === machine(3) && e.observed_at === at(T0, 60 - 21 - 180));
    // Older than what the fleet had sent already: a fleet-wide mark would have dropped it.
    expect(Date.parse(at(T0, 60 - 21 - 180))).toBeLessThan(Date.parse(fleetNewest));
    expect(caughtUp.length).toBe(late.length);
    expect(second.events_enqueued).toBeGreaterThanOrEqual(5 * late.length);
    expect((await marksOf(id, machine(3))).every((m) => m.mark === at(T0, 60 - 21 - 180))).toBe(true);
  });

  it.each([
    ['vendor13', 'vendor13'],
    ['vendor18_tyresense', 'vendor18'],
  ])('%s: a late machine is judged against its own marks in every provider group', async (provider, prefix) => {
    const credentials = credentialsFor(provider);
    const account = credentials?.api_key ?? credentials?.username ?? '';
    rig.sim.setFleet(provider, account, { readings: { late: { machine: 2, minutes: 180 } } });
    try {
      const id = (await rig.connect(provider)).connection_id;
      // These vendors stamp every machine at the last 10-minute tick.
      const tick = new Date(Math.floor(vendorClock.now().getTime() / (10 * MIN)) * 10 * MIN).toISOString();
      await run(id);
      advance(60 * MIN);
      const second = await run(id);
      const late = (await queued(id)).filter((e) => e.equipment === `${prefix}-0003`);
      expect(new Set(late.map((e) => e.observed_at))).toEqual(new Set([at(tick, -180), at(tick, 60 - 180)]));
      // The rest of the fleet reported at the tick: everything newer, the late machine's catch-up included, is sent.
      expect(second.events_enqueued).toBe((await queued(id)).filter((e) => e.observed_at > tick).length + late.filter((e) => e.observed_at === at(tick, 60 - 180)).length);
    } finally {
      rig.sim.setFleet(provider, account, {});
    }
  });

  it("a machine added with an older last report is sent, and shows in the marks' summary", async () => {
    advance(10 * MIN);
    const now = rig.clock.now().toISOString();
    const id = await connect();
    await run(id);
    expect((await read(id)).cursors).toMatchObject({ machines: 5, newest_mark: now });
    quirks({ added: { hoursAgo: 72 } });
    const second = await run(id);
    const added = (await queued(id)).filter((e) => e.equipment === machine(5));
    expect(added.length).toBeGreaterThan(0);
    expect(second.events_enqueued).toBe(added.length);
    expect(added.every((e) => e.observed_at === at(now, -72 * 60))).toBe(true);
    expect(second.cursors).toEqual({ snapshot_at: now, machines: 6, oldest_mark: at(now, -72 * 60), newest_mark: now });
    expect((await read(id)).cursors).toEqual(second.cursors);
  });

  it('a reading stamped years ahead is not sent, is counted in issues and moves no mark; the fixed clock is read again', async () => {
    quirks({ clockAhead: { machine: 1, minutes: 2 * 365 * 24 * 60 } });
    const id = await connect();
    const started = rig.clock.now().toISOString();
    const first = await run(id);
    const sent = await queued(id);
    expect(sent.some((e) => e.equipment === machine(1))).toBe(false);
    expect(new Set(sent.map((e) => e.equipment))).toEqual(new Set([0, 2, 3, 4].map(machine)));
    expect(first.cursors.newest_mark).toBe(started);
    expect(await marksOf(id, machine(1))).toEqual([]);
    const types = new Set(sent.filter((e) => e.equipment === machine(0)).map((e) => e.type));
    const future = (await read(id)).issues.filter((i) => i.kind === 'future_timestamp');
    expect(future).toHaveLength(types.size);
    expect(new Set(future.map((i) => i.detail))).toEqual(new Set([...types].map((t) => `${machine(1)} ${t}`)));
    expect(future.every((i) => i.count === 1 && i.first_seen === started && i.last_seen === started)).toBe(true);

    advance(10 * MIN);
    await run(id);
    expect((await queued(id)).some((e) => e.equipment === machine(1))).toBe(false);
    const again = (await read(id)).issues.filter((i) => i.kind === 'future_timestamp');
    expect(again.every((i) => i.count === 2 && i.first_seen === started && i.last_seen === rig.clock.now().toISOString())).toBe(true);

    // The device's clock is put right: its readings are sent, since no future stamp ever moved its marks.
    rig.sim.setFleet(PROVIDER, ACCOUNT, {});
    const fixed = await run(id);
    expect(fixed.events_enqueued).toBe(types.size);
    expect((await queued(id)).filter((e) => e.equipment === machine(1)).every((e) => e.observed_at === at(rig.clock.now().toISOString(), -7))).toBe(true);
  });

  it('a reading refused as ahead is sent once our clock has caught up with its stamp', async () => {
    quirks({ clockAhead: { machine: 1, minutes: 60 } });
    const id = await connect();
    const stamped = at(rig.clock.now().toISOString(), -7 + 60);
    await run(id);
    expect((await queued(id)).some((e) => e.equipment === machine(1))).toBe(false);
    // Only the gateway's time moves: the vendor still serves the same reading, now within the 10-minute skew.
    rig.clock.advance(45 * MIN);
    const caughtUp = await run(id);
    const sent = (await queued(id)).filter((e) => e.equipment === machine(1));
    expect(caughtUp.events_enqueued).toBe(sent.length);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((e) => e.observed_at === stamped)).toBe(true);
    expect((await marksOf(id, machine(1))).every((m) => m.mark === stamped)).toBe(true);
    expect((await run(id)).events_enqueued).toBe(0);
    vendorClock.set(rig.clock.now());
  });

  it('a reset through the admin API forgets the marks (audited); the next poll sends everything again, the hub drops the repeats', async () => {
    const id = await connect();
    const first = await run(id);
    expect((await run(id)).events_enqueued).toBe(0);
    await drain();
    const ids = (await queued(id)).map((e) => e.id);
    // Delivered rows purged (as retention does), so the events really go to the hub again.
    await h.gateway.database.db.deleteFrom('outbox').where('id', 'in', ids).execute();
    const { accepted, duplicates } = rig.hub.stats();

    const r = await reset(id);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json<{ connection: Connection }>().connection).toMatchObject({ id, cursors: NO_CURSORS });
    expect((await read(id)).cursors).toEqual(NO_CURSORS);
    const audit = (await h.request({ method: 'GET', url: '/admin/v1/audit?org=acme&limit=500', headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` } })).json<{ events: AuditEventView[] }>().events;
    expect(audit.filter((e) => e.action === 'connection.cursors_reset' && e.target === id)).toEqual([expect.objectContaining({ actor: ADMIN_ID, org: 'acme' })]);

    const again = await run(id);
    expect(again.events_enqueued).toBe(first.events_enqueued);
    expect((await queued(id)).map((e) => e.id).sort()).toEqual([...ids].sort());
    await drain();
    expect(rig.hub.stats().duplicates - duplicates, 'every event went to the hub again').toBe(ids.length);
    expect(rig.hub.stats().accepted, 'and none was new there').toBe(accepted);
  });

  it('refuses a reset of an unknown connection, of another org, without the admin token, with a bad body, or while a poll runs', async () => {
    const id = await connect();
    await run(id);
    const machines = (await read(id)).cursors.machines;
    expectError(await reset('con_nope'), 404, 'not_found');
    expectError(await reset(id, 'other'), 404, 'not_found');
    expectError(await reset(id, 'nope'), 404, 'not_found');
    expectError(await admin(`/admin/v1/telematics/connections/${id}/reset-cursors`, {}), 400, 'invalid_input');
    expectError(await admin(`/admin/v1/telematics/connections/${id}/reset-cursors`, { org: 'acme', extra: 1 }), 400, 'invalid_input');
    expectError(await admin(`/admin/v1/telematics/connections/${id}/reset-cursors`, { org: 'acme' }, `Bearer ${rig.key}`), 401, 'unauthorized');
    expectError(await h.request({ method: 'POST', url: `/admin/v1/telematics/connections/${id}/reset-cursors`, payload: { org: 'acme' } }), 401, 'unauthorized');
    // Not a door for API keys: the org's own key does not reach it under /v1 either.
    expect((await h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/reset-cursors`, key: rig.key, payload: { org: 'acme' } })).statusCode).toBe(404);
    // A poll holding the connection would store marks moved from the old ones.
    const until = new Date(rig.clock.now().getTime() + MIN).toISOString();
    await h.gateway.database.db.updateTable('telematics_connections').set({ lease_owner: 'poll-elsewhere', lease_until: until }).where('id', '=', id).execute();
    expectError(await reset(id), 409, 'concurrent_change');
    await h.gateway.database.db.updateTable('telematics_connections').set({ lease_owner: null, lease_until: null }).where('id', '=', id).execute();
    expect((await read(id)).cursors.machines).toBe(machines);
    expect(machines).toBe(5);
  });

  it("what readers report is counted in issues with the poll's outcome, and a failed poll's unreadable document too", async () => {
    const id = await connect();
    const snapshot = iso15143Reader.snapshot.bind(iso15143Reader);
    const reporting = vi.spyOn(iso15143Reader, 'snapshot').mockImplementation((ctx) => {
      ctx.report?.('unmapped_element', 'CumulativeLoadCount');
      ctx.report?.('unmapped_element', 'CumulativeLoadCount');
      ctx.report?.('unknown_unit', 'gallon (FuelUsed)');
      return snapshot(ctx);
    });
    try {
      const ok = await run(id);
      expect(ok.events_enqueued).toBeGreaterThan(0);
      advance(10 * MIN);
      await run(id);
    } finally {
      reporting.mockRestore();
    }
    const first = rig.clock.now().getTime() - 10 * MIN;
    expect((await read(id)).issues).toEqual([
      { kind: 'unmapped_element', detail: 'CumulativeLoadCount', count: 4, first_seen: new Date(first).toISOString(), last_seen: rig.clock.now().toISOString() },
      { kind: 'unknown_unit', detail: 'gallon (FuelUsed)', count: 2, first_seen: new Date(first).toISOString(), last_seen: rig.clock.now().toISOString() },
    ]);

    advance(10 * MIN);
    const failing = vi.spyOn(iso15143Reader, 'snapshot').mockImplementation(() => {
      throw new VendorDocumentInvalidError(PROVIDER, '/Fleet/2', 'unexpected close tag at line 3');
    });
    try {
      const r = await h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key: rig.key });
      expect(r.statusCode).toBe(502);
    } finally {
      failing.mockRestore();
    }
    const connection = await read(id);
    expect(connection.issues[0]).toEqual({ kind: 'document_invalid', detail: '/Fleet/2: unexpected close tag at line 3', count: 1, first_seen: rig.clock.now().toISOString(), last_seen: rig.clock.now().toISOString() });
    expect(connection.issues).toHaveLength(3);
  });
});

describe('connections reset-cursors, CLI', () => {
  const cli = useInProcessCli('reset-cursors');
  let rig: TelematicsRig;
  const saved = { GATEWAY_SECRET: process.env.GATEWAY_SECRET };

  beforeAll(async () => {
    rig = await startTelematicsRig('sqlite', { fleetSize: 3 });
    // The CLI runs on the harness's database (useInProcessCli's own file is set before this and restored after).
    process.env.DATABASE_URL = rig.h.databaseUrl;
    process.env.GATEWAY_SECRET = rig.h.config.GATEWAY_SECRET;
  });
  afterAll(async () => {
    if (saved.GATEWAY_SECRET === undefined) Reflect.deleteProperty(process.env, 'GATEWAY_SECRET');
    else process.env.GATEWAY_SECRET = saved.GATEWAY_SECRET;
    await rig.close();
  });

  const run = async (id: string) => (await rig.h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key: rig.key })).json<{ events_enqueued: number }>().events_enqueued;

  it('forgets the marks (audited as cli), so the next poll sends everything again; --org narrows; bad input is one line', async () => {
    const id = (await rig.connect(PROVIDER)).connection_id;
    const first = await run(id);
    expect(first).toBeGreaterThan(0);
    expect(await run(id)).toBe(0);

    const text = await cli('connections', 'reset-cursors', id, '--org', 'acme');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`cursors of ${id} (${PROVIDER}) reset: its next poll sends everything the vendor returns\n`);
    expect(await run(id)).toBe(first);
    const json = await cli('connections', 'reset-cursors', id, '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, cursors: NO_CURSORS });
    expect(await run(id)).toBe(first);

    const audit = (await rig.h.gateway.services.audit.list({ limit: 500 }, undefined)).events.filter((e) => e.action === 'connection.cursors_reset');
    expect(audit.map((e) => [e.actor, e.target, e.org])).toEqual([
      ['cli', id, 'acme'],
      ['cli', id, 'acme'],
    ]);

    for (const [args, message] of [
      [[id, '--org', 'other'], `error: connection ${id} not found`],
      [[id, '--org', 'nope'], 'error: org nope not found'],
      [['con_nope'], 'error: connection con_nope not found'],
    ] as const) {
      const res = await cli('connections', 'reset-cursors', ...args);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim()).toBe(message);
    }
    expect(await run(id)).toBe(0);
  });
});
