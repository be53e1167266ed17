import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IsoDialect } from '../../../../src/sim/vendor-sim/iso-dialect.js';
import * as f from '../../../../src/sim/vendor-sim/fleet.js';
import { dialects } from '../../../support/harness.js';
import { credentialsFor, startTelematicsRig, type TelematicsRig } from '../telematics-support.js';

/** Every ISO 15143-3 dialect the vendor simulator writes, connected and polled through the API, read to the hub. */

interface HubEvent {
  id: string;
  connection_id: string;
  type: string;
  observed_at: string;
  equipment: { id: string; oem: string | null; model: string | null; serial: string | null; pin: string | null; engine_number?: string };
  data: Record<string, unknown>;
  raw?: { fields: Record<string, string>; truncated: boolean };
}

const FLEET = 5;
const PAGE = 2;
const PAGES = Math.ceil(FLEET / PAGE);
const STANDARD_TYPES = ['location', 'operating_hours', 'idle_hours', 'fuel_used', 'fuel_remaining', 'def_remaining', 'distance', 'engine_status'];
const XML = 'vendor1_livelink';
const JSON_FEED = 'vendor2_machineiq';

describe.each(dialects)('ISO 15143-3 dialects end to end (%s)', (dialect) => {
  let rig: TelematicsRig;

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect, { fleetSize: FLEET, pageSize: PAGE });
  });
  afterAll(() => rig.close());
  beforeEach(() => rig.sim.reset());

  const account = (provider: string): string => credentialsFor(provider)?.username ?? '';
  const machines = (provider: string): f.Machine[] => f.fleetOf(provider, FLEET);
  /** The sim reports on a 10-minute grid, each machine 7 minutes before the one above it. */
  const reportedAt = (m: f.Machine): Date => new Date(Math.floor(rig.clock.now().getTime() / 600_000) * 600_000 - m.index * 7 * 60_000);

  /** Connects with the fleet speaking `isoDialect`, polls once, delivers, and answers what the hub got. */
  async function pollWith(provider: string, isoDialect: IsoDialect): Promise<{ connectionId: string; enqueued: number; atHub: HubEvent[] }> {
    rig.sim.setFleet(provider, account(provider), { dialect: isoDialect });
    const { connection_id } = await rig.connect(provider);
    const run = await rig.h.request({ method: 'POST', url: `/v1/telematics/connections/${connection_id}/run`, key: rig.key });
    expect(run.statusCode, run.body).toBe(200);
    for (let n = await rig.h.gateway.delivery.drainOnce(); n > 0; n = await rig.h.gateway.delivery.drainOnce());
    const atHub = rig.hub
      .events()
      .filter((e) => e.type === 'telematics.event')
      .map((e) => e.data as HubEvent)
      .filter((e) => e.connection_id === connection_id);
    return { connectionId: connection_id, enqueued: run.json<{ events_enqueued: number }>().events_enqueued, atHub };
  }

  const ofMachine = (events: HubEvent[], m: f.Machine, type: string): HubEvent[] => events.filter((e) => e.equipment.id === m.equipmentId && e.type === type);
  const one = (events: HubEvent[], m: f.Machine, type: string): HubEvent => {
    const found = ofMachine(events, m, type);
    expect(found, `${m.equipmentId} ${type}`).toHaveLength(1);
    return found[0] as HubEvent;
  };

  /** Every machine's usual readings arrived, at its report time, with the sim's values. */
  function expectEveryStandardReading(provider: string, events: HubEvent[]): void {
    for (const m of machines(provider)) {
      const at = reportedAt(m);
      expect(one(events, m, 'operating_hours')).toMatchObject({ observed_at: at.toISOString(), data: { value: f.operatingHours(m, at), unit: 'h' } });
      expect(one(events, m, 'location').data).toMatchObject(f.positionAt(m, at));
      expect(one(events, m, 'fuel_used').data).toMatchObject({ value: f.fuelUsedLitres(m, at), unit: 'L' });
      expect(one(events, m, 'distance').data).toMatchObject({ value: f.odometerKm(m, at), unit: 'km' });
      expect(one(events, m, 'engine_status').data).toEqual({ running: f.engineRunning(m, at) });
    }
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...STANDARD_TYPES].sort());
    expect(events).toHaveLength(FLEET * STANDARD_TYPES.length);
  }

  const pagesRead = (provider: string): string[] =>
    rig.sim
      .requests(provider)
      .filter((r) => r.path.startsWith(`/${provider}/Fleet/`))
      .map((r) => r.path.replace(`/${provider}`, ''));

  it.each<[string, string, IsoDialect]>([
    ['XML without a namespace, datetime as a child, fractions without Z', XML, { namespace: 'none', datetime: 'element', times: 'fractional_no_z' }],
    ['XML with a namespace prefix, lower-case links, no Z', XML, { namespace: 'prefixed', lowerCaseLinks: true, times: 'no_z' }],
    ['XML after blank lines', XML, { leadingWhitespace: '\n\n   ' }],
    ['XML after a byte order mark', XML, { leadingWhitespace: '\uFEFF' }],
    ['JSON in a top-level array', JSON_FEED, { topLevelArray: true }],
    ['JSON with lower-case links', JSON_FEED, { lowerCaseLinks: true }],
    ['JSON with @datetime attributes, prefixed keys, fractions with Z', JSON_FEED, { datetime: 'attribute', namespace: 'prefixed', times: 'fractional_z' }],
    ['JSON with datetime keys without Z, in an array with lower-case links', JSON_FEED, { datetime: 'element', times: 'no_z', topLevelArray: true, lowerCaseLinks: true }],
    ['JSON after blank lines', JSON_FEED, { leadingWhitespace: '\r\n ' }],
  ])('%s: connects, and every poll reads every page to the hub', async (_name, provider, isoDialect) => {
    const { enqueued, atHub } = await pollWith(provider, isoDialect);
    expect(enqueued).toBe(FLEET * STANDARD_TYPES.length);
    expectEveryStandardReading(provider, atHub);
    // The connect check read page 1 once; the poll read every page once.
    expect(pagesRead(provider)).toEqual(['/Fleet/1', ...Array.from({ length: PAGES }, (_, i) => `/Fleet/${i + 1}`)]);
  });

  it.each([XML, JSON_FEED])('%s: every ISO 15143-3:2016 data element reaches the hub in normalized units', async (provider) => {
    const { atHub } = await pollWith(provider, { extraElements: true });
    for (const m of machines(provider)) {
      const at = reportedAt(m);
      expect(one(atHub, m, 'location').data).toMatchObject({ altitude: { value: f.altitudeMetres(m), unit: 'm', source: { value: f.altitudeMetres(m), unit: 'metre' } } });
      expect(one(atHub, m, 'pto_hours').data).toMatchObject({ value: f.ptoHours(m, at), unit: 'h' });
      expect(one(atHub, m, 'idle_non_operating_hours').data).toMatchObject({ value: f.idleNonOperatingHours(m, at), unit: 'h' });
      expect(one(atHub, m, 'fuel_used_last_24h').data).toMatchObject({ value: f.fuelUsedLast24Litres(m), unit: 'L' });
      expect(one(atHub, m, 'fuel_tank_capacity').data).toMatchObject({ value: m.tankLitres, unit: 'L' });
      expect(one(atHub, m, 'def_tank_capacity').data).toMatchObject({ value: f.defTankLitres(m), unit: 'L' });
      expect(one(atHub, m, 'load_count').data).toEqual({ count: f.loadCount(m, at) });
      expect(one(atHub, m, 'payload_total').data).toMatchObject({ value: f.payloadTonnes(m, at), unit: 't', source: { unit: 'metric tonne' } });
      for (const e of atHub.filter((x) => x.equipment.id === m.equipmentId)) expect(e.equipment.engine_number).toBe(`EN${m.serialNumber}`);
    }
    expect(atHub.some((e) => e.type === 'equipment_seen'), 'nothing left unmapped').toBe(false);
  });

  it.each([XML, JSON_FEED])('%s: MiX-style names are read as the standard ones', async (provider) => {
    const { atHub } = await pollWith(provider, { mixNames: true });
    for (const m of machines(provider)) {
      const at = reportedAt(m);
      expect(one(atHub, m, 'distance').data).toEqual({ value: f.odometerKm(m, at), unit: 'km', source: { value: f.odometerKm(m, at), unit: 'kilometre' } });
      expect(one(atHub, m, 'fuel_used').data).toMatchObject({ value: f.fuelUsedLitres(m, at), unit: 'L' });
      expect(one(atHub, m, 'fuel_used_last_24h').data).toMatchObject({ value: f.fuelUsedLast24Litres(m), unit: 'L' });
      expect(one(atHub, m, 'idle_non_operating_hours').data).toMatchObject({ value: f.idleNonOperatingHours(m, at), unit: 'h' });
    }
    expect(atHub.some((e) => e.type === 'equipment_seen')).toBe(false);
  });

  it.each([XML, JSON_FEED])('%s: a header-only machine is seen; an unmapped element and an unknown unit travel in raw', async (provider) => {
    const [m0, m1] = machines(provider) as [f.Machine, f.Machine];
    const { connectionId, atHub } = await pollWith(provider, { headerOnly: [1], unmappedElement: true, unknownUnit: true });
    const snapshotAt = rig.clock.now().toISOString();
    expect(atHub.filter((e) => e.equipment.id === m1.equipmentId)).toEqual([
      expect.objectContaining({ type: 'equipment_seen', observed_at: snapshotAt, data: { readings: 0 }, equipment: expect.objectContaining({ pin: m1.pin }) as unknown }),
    ]);
    // The others: their readings, but the odometer in furlongs, which stays in raw with the element nobody maps.
    expect(ofMachine(atHub, m0, 'distance')).toEqual([]);
    const seen = one(atHub, m0, 'equipment_seen');
    expect(seen).toMatchObject({ observed_at: snapshotAt, data: { readings: STANDARD_TYPES.length - 1 } });
    expect(seen.raw).toEqual({
      truncated: false,
      fields: expect.objectContaining({ 'Distance.OdometerUnits': 'furlong', 'Distance.Odometer': String(f.odometerKm(m0, reportedAt(m0))), 'BatteryPotential.BatteryPotential': '13.3' }) as unknown,
    });
    expect(new Set(atHub.filter((e) => e.type === 'equipment_seen').map((e) => e.equipment.id)).size).toBe(FLEET);
    // Seen again at the same snapshot time: nothing new for the hub.
    const again = await rig.h.request({ method: 'POST', url: `/v1/telematics/connections/${connectionId}/run`, key: rig.key });
    expect(again.json<{ events_enqueued: number }>().events_enqueued).toBe(0);
  });

  it.each([XML, JSON_FEED])('%s: placeholders are unknown; machines with nothing but placeholders to key them by are not merged', async (provider) => {
    const [m0, m1, m2, m3] = machines(provider) as [f.Machine, f.Machine, f.Machine, f.Machine];
    const { atHub } = await pollWith(provider, { placeholders: [0], anonymous: [1, 2] });
    const equipment = one(atHub, m0, 'operating_hours').equipment;
    expect(equipment).toEqual({ id: m0.equipmentId, oem: null, model: null, serial: null, pin: m0.pin });
    const ids = new Set(atHub.map((e) => e.equipment.id));
    expect(ids.has('missing')).toBe(false);
    expect(ids.has(m1.equipmentId) || ids.has(m2.equipmentId)).toBe(false);
    expect(ids).toEqual(new Set(machines(provider).filter((m) => m.index !== 1 && m.index !== 2).map((m) => m.equipmentId)));
    expect(one(atHub, m3, 'operating_hours').equipment.model).toBe(m3.model);
  });

  describe('a page that does not parse', () => {
    it.each([XML, JSON_FEED])('%s: page 2 -> the poll fails naming the path and the parser reason; nothing is sent', async (provider) => {
      rig.sim.setFleet(provider, account(provider), { dialect: { brokenPage: 2 } });
      const { connection_id } = await rig.connect(provider);
      const run = await rig.h.request({ method: 'POST', url: `/v1/telematics/connections/${connection_id}/run`, key: rig.key });
      expect(run.statusCode).toBe(502);
      const connection = (await rig.h.request({ method: 'GET', url: `/v1/telematics/connections/${connection_id}`, key: rig.key })).json<{
        connection: { last_error: { message: string } | null; cursors: { snapshot_at: string | null } };
      }>().connection;
      expect(connection.last_error?.message).toMatch(new RegExp(`^${provider} sent a document that cannot be read at /Fleet/2: .+`));
      expect(connection.last_error?.message).toMatch(provider === XML ? /unclosed|end|closed/i : /JSON/i);
      expect(connection.cursors.snapshot_at).toBeNull();
    });

    it.each([XML, JSON_FEED])('%s: page 1 at connect -> 502 and no connection', async (provider) => {
      rig.sim.setFleet(provider, account(provider), { dialect: { brokenPage: 1 } });
      const before = (await rig.h.request({ method: 'GET', url: '/v1/telematics/connections', key: rig.key })).json<{ connections: unknown[] }>().connections.length;
      const { connect_token } = await rig.h.gateway.services.connectTokens.issue({ org: 'acme' });
      const r = await rig.h.request({ method: 'POST', url: '/connect', remoteAddress: rig.nextIp(), payload: { connect_token, provider, credentials: credentialsFor(provider) } });
      expect(r.statusCode, r.body).toBe(502);
      const after = (await rig.h.request({ method: 'GET', url: '/v1/telematics/connections', key: rig.key })).json<{ connections: unknown[] }>().connections.length;
      expect(after).toBe(before);
    });
  });
});
