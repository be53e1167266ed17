import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { VendorDocumentInvalidError, VendorRejectedError, VendorUnavailableError, type ProviderEndpoint } from '../../../../src/modules/telematics/providers/adapter.js';
import { oauthAdapterFor } from '../../../../src/modules/telematics/providers/adapters.js';
import { normalizedEventSchema, type NormalizedEvent } from '../../../../src/modules/telematics/providers/event.js';
import { readerFor } from '../../../../src/modules/telematics/providers/readers.js';
import { nextPage, pageNumberOf } from '../../../../src/modules/telematics/providers/iso15143/paging.js';
import { RAW_MAX_CHARS, RawFields } from '../../../../src/modules/telematics/providers/iso15143/raw.js';
import { isoTime, toCelsius, toHours, toKm, toKpa, toLitres } from '../../../../src/modules/telematics/providers/normalize.js';
import type { ReaderContext, ReadIssueKind } from '../../../../src/modules/telematics/providers/reader.js';
import { findProvider, PROVIDERS, type Provider } from '../../../../src/modules/telematics/providers/catalog.js';
import * as f from '../../../../src/sim/vendor-sim/fleet.js';
import type { IsoDialect } from '../../../../src/sim/vendor-sim/iso-dialect.js';
import { startVendorSim, type VendorSim } from '../../../../src/sim/vendor-sim.js';

const FLEET = 12;
const PAGE = 5;
const LAST_PAGE = Math.ceil(FLEET / PAGE);
const NOW = new Date('2026-01-05T08:03:00Z');
/** The sim's JSON APIs report at the latest 10-minute tick; ISO machines each a further 7 minutes apart. */
const TICK = new Date(Math.floor(NOW.getTime() / 600_000) * 600_000);
const isoReportedAt = (m: f.Machine): Date => new Date(TICK.getTime() - m.index * 7 * 60_000);
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let sim: VendorSim;
const tokens = new Map<string, string>();

beforeAll(async () => {
  sim = await startVendorSim({ fleetSize: FLEET, pageSize: PAGE, now: () => NOW });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.reset();
  tokens.clear();
});

const provider = (id: string): Provider => {
  const p = findProvider(id);
  if (p === undefined) throw new Error(`no provider ${id}`);
  return p;
};
const endpointOf = (p: Provider, s: VendorSim = sim): ProviderEndpoint => ({ baseUrl: `${s.url}/${p.id}`, clientId: 'gw-client', clientSecret: 'gw-secret', timeoutMs: 5000 });

/** Plays the fleet owner's consent once per provider for an OEM access token. */
async function accessToken(p: Provider): Promise<string> {
  const held = tokens.get(p.id);
  if (held !== undefined) return held;
  const adapter = oauthAdapterFor(p);
  if (adapter === undefined) throw new Error('no OAuth adapter');
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = 'https://gateway.example/connect/callback';
  const url = adapter.authorizeUrl(endpointOf(p), { state: 's', codeChallenge: createHash('sha256').update(verifier).digest('base64url'), redirectUri });
  const res = await fetch(url, { redirect: 'manual' });
  const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const issued = await adapter.exchangeCode(endpointOf(p), { code, codeVerifier: verifier, redirectUri }, NOW);
  tokens.set(p.id, issued.access_token);
  return issued.access_token;
}

async function ctxOf(p: Provider, extra: Partial<ReaderContext> = {}, s: VendorSim = sim): Promise<ReaderContext> {
  const auth: ReaderContext['auth'] =
    p.group === 'oem_oauth'
      ? { accessToken: await accessToken(p) }
      : { credentials: p.credentials === 'api_key' ? { api_key: 'k-live-0123456789' } : { username: 'fleet-user', password: 's3cret-pass' } };
  return { provider: p, endpoint: endpointOf(p, s), auth, connectionId: 'con_test', ...extra };
}

async function readAll(p: Provider, extra: Partial<ReaderContext> = {}): Promise<NormalizedEvent[]> {
  const reader = readerFor(p);
  if (reader === undefined) throw new Error('no reader');
  const out: NormalizedEvent[] = [];
  for await (const batch of reader.snapshot(await ctxOf(p, extra))) out.push(...batch);
  return out;
}

async function failure(read: () => Promise<unknown>): Promise<unknown> {
  try {
    await read();
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const one = <T extends NormalizedEvent['type']>(events: NormalizedEvent[], equipmentId: string, type: T): Extract<NormalizedEvent, { type: T }> => {
  const found = events.filter((e): e is Extract<NormalizedEvent, { type: T }> => e.equipment.id === equipmentId && e.type === type);
  expect(found, `${equipmentId} ${type}`).toHaveLength(1);
  return found[0] as Extract<NormalizedEvent, { type: T }>;
};

const readable = PROVIDERS.filter((p) => p.group !== 'stub');
const iso = PROVIDERS.filter((p) => p.group === 'iso15143');

const EXPECTED_TYPES: Readonly<Record<string, readonly string[]>> = {
  iso15143: ['location', 'operating_hours', 'idle_hours', 'fuel_used', 'fuel_remaining', 'def_remaining', 'distance', 'engine_status'],
  oem_oauth: ['location', 'operating_hours', 'fuel_remaining'],
  vendor13: ['location', 'operating_hours', 'fuel_remaining'],
  vendor14: ['location', 'operating_hours', 'fuel_remaining'],
  vendor15: ['location', 'operating_hours', 'fuel_remaining'],
  vendor16: ['location', 'operating_hours', 'fuel_remaining'],
  vendor17: ['location', 'operating_hours', 'distance'],
  tpms: ['tire_pressure', 'tire_temperature', 'tpms_alert'],
};

describe('readers', () => {
  it('has a reader for every provider but the stubs', () => {
    for (const p of PROVIDERS) expect(readerFor(p) !== undefined, p.id).toBe(p.group !== 'stub');
  });
});

describe.each(readable.map((p) => [p.id, p] as const))('snapshot of %s', (_id, p) => {
  it('yields valid events for every machine, with deterministic ids', async () => {
    const events = await readAll(p, { batchSize: 7 });
    for (const e of events) {
      expect(() => normalizedEventSchema.parse(e), JSON.stringify(e)).not.toThrow();
      expect(e.observed_at).toMatch(ISO_Z);
      expect(e.observed_at.startsWith('0001')).toBe(false);
      expect(e.connection_id).toBe('con_test');
      expect(e.provider).toBe(p.id);
    }
    expect(new Set(events.map((e) => e.equipment.id)).size).toBe(FLEET);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...(EXPECTED_TYPES[p.id] ?? EXPECTED_TYPES[p.group] ?? [])].sort());
    const again = await readAll(p, { batchSize: 500 });
    expect(again.map((e) => e.id)).toEqual(events.map((e) => e.id));
  });
});

describe.each(iso.map((p) => [p.id, p] as const))('ISO 15143-3 %s', (_id, p) => {
  it('maps every reading of a machine to the sim fleet values, in normalized units', async () => {
    const events = await readAll(p);
    for (const m of f.fleetOf(p.id, FLEET)) {
      const at = isoReportedAt(m);
      const atIso = at.toISOString();
      expect(one(events, m.equipmentId, 'operating_hours')).toMatchObject({
        observed_at: atIso,
        equipment: { id: m.equipmentId, oem: m.oemName, model: m.model, serial: m.serialNumber, pin: m.pin },
        data: { value: f.operatingHours(m, at), unit: 'h' },
      });
      expect(one(events, m.equipmentId, 'idle_hours').data.value).toBe(f.idleHours(m, at));
      expect(one(events, m.equipmentId, 'fuel_used').data).toEqual({ value: f.fuelUsedLitres(m, at), unit: 'L', source: { value: f.fuelUsedLitres(m, at), unit: 'litre' } });
      expect(one(events, m.equipmentId, 'fuel_remaining').data).toMatchObject({ value: f.fuelRemainingPercent(m, at), unit: '%' });
      expect(one(events, m.equipmentId, 'def_remaining').data).toMatchObject({ value: f.defRemainingPercent(m, at), unit: '%' });
      expect(one(events, m.equipmentId, 'distance').data).toMatchObject({ value: f.odometerKm(m, at), unit: 'km' });
      expect(one(events, m.equipmentId, 'engine_status').data).toEqual({ running: f.engineRunning(m, at) });
      // Feeds with placeholders date every sixth machine's location 0001-01-01: no event rather than a bogus time.
      const placeholder = ['vendor3_himate', 'vendor7_consite', 'vendor9_sitewatch'].includes(p.id) && m.index % 6 === 5;
      const locations = events.filter((e) => e.equipment.id === m.equipmentId && e.type === 'location');
      expect(locations.map((e) => [e.observed_at, e.data])).toEqual(placeholder ? [] : [[atIso, f.positionAt(m, at)]]);
    }
  });

  it('skips readings observed before the cursor', async () => {
    const since = isoReportedAt(f.fleetOf(p.id, FLEET)[1] as f.Machine);
    const events = await readAll(p, { since });
    expect(new Set(events.map((e) => e.equipment.id))).toEqual(new Set(f.fleetOf(p.id, FLEET).slice(0, 2).map((m) => m.equipmentId)));
  });

  it('reads each fleet page once and stops at the end, whatever the last page links to', async () => {
    await readAll(p);
    const pages = sim.requests(p.id).filter((r) => r.path.includes('/Fleet/')).map((r) => r.path.replace(`/${p.id}`, ''));
    expect(pages).toEqual(Array.from({ length: LAST_PAGE }, (_, i) => `/Fleet/${i + 1}`));
  });
});

describe('ISO paging decisions', () => {
  const link = (n: number): string => `https://feed.example/aemp/Fleet/${n}`;
  it('follows next until self is last, an empty page, a page already read, or no next', () => {
    expect(nextPage(1, { self: link(1), next: link(2), last: link(3) }, true, new Set([1]))).toBe(2);
    expect(nextPage(3, { self: link(3), next: link(0), last: link(3) }, true, new Set([1, 2, 3]))).toBeUndefined();
    // Without a last link: a link back to page 0 or 1 is a page already read.
    expect(nextPage(3, { self: link(3), next: link(0) }, true, new Set([1, 2, 3]))).toBeUndefined();
    expect(nextPage(3, { self: link(3), next: link(1) }, true, new Set([1, 2, 3]))).toBeUndefined();
    // An empty page that still links onwards ends the read.
    expect(nextPage(4, { self: link(4), next: link(5) }, false, new Set([1, 2, 3, 4]))).toBeUndefined();
    expect(nextPage(2, { self: link(2) }, true, new Set([1, 2]))).toBeUndefined();
    expect(pageNumberOf('/Fleet/Equipment/ID/X/Locations/2026-01-01T00%3A00%3A00Z/2026-01-02T00%3A00%3A00Z/7')).toBe(7);
    expect(pageNumberOf('not a page')).toBeUndefined();
  });

  it('gives up on a feed linking fresh pages forever', async () => {
    const err = await failure(() => readAll(provider('vendor1_livelink'), { maxPages: 2 }));
    expect(err).toBeInstanceOf(VendorUnavailableError);
  });
});

describe('ISO errors', () => {
  it('surfaces a 401 in the middle of a read as VendorRejectedError', async () => {
    for (const id of ['vendor1_livelink', 'vendor6_lida']) {
      const p = provider(id);
      const reader = readerFor(p);
      let batches = 0;
      const err = await failure(async () => {
        for await (const batch of reader?.snapshot(await ctxOf(p, { batchSize: 10 })) ?? []) {
          expect(batch.length).toBeLessThanOrEqual(10);
          batches += 1;
          sim.setMode(id, { kind: 'reject' });
        }
      });
      expect(batches, id).toBeGreaterThan(0);
      expect(err, id).toBeInstanceOf(VendorRejectedError);
      expect(sim.requests(id).at(-1)?.status).toBe(401);
    }
  });

  it('surfaces 429 and 503 as VendorAskedToWaitError with the Retry-After, another 5xx as VendorUnavailableError', async () => {
    sim.setMode('vendor1_livelink', { kind: 'rate_limited', retryAfterSeconds: 30 });
    expect(await failure(() => readAll(provider('vendor1_livelink')))).toMatchObject({ name: 'VendorAskedToWaitError', kind: 'failed', retryAfterSeconds: 30 });
    sim.setMode('vendor5_visionlink', { kind: 'rate_limited', retryAfterSeconds: 12 });
    expect(await failure(() => readAll(provider('vendor5_visionlink')))).toMatchObject({ name: 'VendorAskedToWaitError', retryAfterSeconds: 12 });
    sim.setMode('vendor13', { kind: 'fail', status: 502 });
    expect(await failure(() => readAll(provider('vendor13')))).toMatchObject({ name: 'VendorUnavailableError', kind: 'failed' });
  });

  it('times out a vendor that does not answer', async () => {
    const p = provider('vendor1_livelink');
    sim.setMode(p.id, { kind: 'slow', delayMs: 1000 });
    const ctx = await ctxOf(p);
    const err = await failure(async () => {
      for await (const _batch of readerFor(p)?.snapshot({ ...ctx, endpoint: { ...ctx.endpoint, timeoutMs: 100 } }) ?? []) void _batch;
    });
    expect(err).toMatchObject({ name: 'VendorUnavailableError', kind: 'timeout' });
  });

  it('refuses a bad OEM access token and wrong credentials', async () => {
    const p = provider('vendor11_operations_center');
    const read = async (ctx: ReaderContext) => {
      for await (const _batch of readerFor(ctx.provider)?.snapshot(ctx) ?? []) void _batch;
    };
    expect(await failure(async () => read({ ...(await ctxOf(p)), auth: { accessToken: 'at_unknown' } }))).toBeInstanceOf(VendorRejectedError);
    const v2 = provider('vendor2_machineiq');
    expect(await failure(async () => read({ ...(await ctxOf(v2)), auth: { credentials: { username: 'u', password: 'wrong-password' } } }))).toBeInstanceOf(VendorRejectedError);
  });
});

describe('ISO dialects: what a read cannot use is counted', () => {
  const reportsOf = async (id: string, dialect: IsoDialect) => {
    sim.setFleet(id, 'fleet-user', { dialect });
    const reports: [ReadIssueKind, string][] = [];
    const events = await readAll(provider(id), { report: (kind, detail) => reports.push([kind, detail]) });
    return { events, reports, count: (kind: ReadIssueKind, detail: RegExp) => reports.filter(([k, d]) => k === kind && detail.test(d)).length };
  };

  it.each(['vendor1_livelink', 'vendor6_lida'])('%s: unmapped elements, unknown units and placeholders, each once per machine', async (id) => {
    const { events, reports, count } = await reportsOf(id, { headerOnly: [1], anonymous: [2], placeholders: [0], unmappedElement: true, unknownUnit: true });
    // Ten machines read their elements: the header-only one has none, the anonymous one is skipped.
    expect(count('unmapped_element', /^BatteryPotential$/)).toBe(10);
    expect(count('unknown_unit', /^Distance in "furlong"$/)).toBe(10);
    expect(count('placeholder', /^EquipmentHeader (Model|SerialNumber) "missing"$/)).toBe(2 + 1);
    expect(count('placeholder', /^EquipmentHeader PIN "missing"$/)).toBe(1);
    expect(count('placeholder', /without a usable EquipmentID, PIN or SerialNumber \(skipped\)$/)).toBe(1);
    expect(reports).toHaveLength(10 + 10 + 3 + 1 + 1);
    for (const e of events) expect(() => normalizedEventSchema.parse(e), JSON.stringify(e)).not.toThrow();
    expect(events.filter((e) => e.type === 'equipment_seen')).toHaveLength(FLEET - 1);
  });

  it('placeholder times are counted, not kept: the reading has no time to be sent at', async () => {
    const { events, count } = await reportsOf('vendor3_himate', {});
    expect(count('placeholder', /^Location datetime "0001-01-01T00:00:00"$/)).toBe(2);
    expect(events.some((e) => e.type === 'equipment_seen')).toBe(false);
  });

  it('the 2016 elements and MiX names read without a report', async () => {
    const { events, reports } = await reportsOf('vendor1_livelink', { extraElements: true, mixNames: true });
    expect(reports).toEqual([]);
    for (const e of events) expect(() => normalizedEventSchema.parse(e), JSON.stringify(e)).not.toThrow();
  });

  it('keeps raw within its bound and says when it cut', () => {
    const raw = new RawFields();
    const big = { name: 'VendorBlob', attrs: {}, text: '', children: Array.from({ length: 100 }, (_, i) => ({ name: `Field${i}`, attrs: {}, text: 'x'.repeat(100), children: [] })) };
    raw.add(big);
    const kept = raw.value();
    expect(kept?.truncated).toBe(true);
    const size = Object.entries(kept?.fields ?? {}).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(size).toBeLessThanOrEqual(RAW_MAX_CHARS);
    expect(size).toBeGreaterThan(RAW_MAX_CHARS - 200);
  });

  it.each(['vendor1_livelink', 'vendor2_machineiq'])('%s: a page that does not parse is VendorDocumentInvalidError with its path and the reason', async (id) => {
    sim.setFleet(id, 'fleet-user', { dialect: { brokenPage: 2 } });
    const err = await failure(() => readAll(provider(id)));
    expect(err).toBeInstanceOf(VendorDocumentInvalidError);
    expect(err).toMatchObject({ path: '/Fleet/2', kind: 'failed', reason: expect.stringMatching(/.{5,}/) as unknown });
  });
});

describe('ISO time series', () => {
  const range = { start: new Date('2026-01-03T08:00:00Z'), end: new Date('2026-01-05T08:00:00Z') };

  it('replays two days of one machine as hourly readings of every element', async () => {
    const p = provider('vendor7_consite');
    const m = f.fleetOf(p.id, FLEET)[2] as f.Machine;
    const events: NormalizedEvent[] = [];
    for await (const batch of readerFor(p)?.series?.(await ctxOf(p), { ...range, pins: [m.pin] }) ?? []) events.push(...batch);
    const hours = events.filter((e) => e.type === 'operating_hours');
    expect(hours).toHaveLength(49);
    hours.forEach((e, i) => {
      const at = new Date(range.start.getTime() + i * 3_600_000);
      expect(e).toMatchObject({ observed_at: at.toISOString(), equipment: { id: m.equipmentId, pin: m.pin }, data: { value: f.operatingHours(m, at) } });
    });
    expect(events.filter((e) => e.type === 'location')).toHaveLength(49);
    expect(events.filter((e) => e.type === 'engine_status')).toHaveLength(49);
    const faults = events.filter((e) => e.type === 'fault');
    expect(faults.length).toBeGreaterThan(0);
    for (const e of faults) expect(e.data.code).toBe(f.faultAt(m, new Date(e.observed_at))?.id);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('reads a series in another dialect: a JSON array, lower-case links, @datetime without Z', async () => {
    const p = provider('vendor2_machineiq');
    const m = f.fleetOf(p.id, FLEET)[1] as f.Machine;
    sim.setFleet(p.id, 'fleet-user', { dialect: { topLevelArray: true, lowerCaseLinks: true, datetime: 'attribute', times: 'no_z' } });
    const events: NormalizedEvent[] = [];
    for await (const batch of readerFor(p)?.series?.(await ctxOf(p), { ...range, pins: [m.pin], elements: ['CumulativeOperatingHours'] }) ?? []) events.push(...batch);
    expect(events.map((e) => e.observed_at)).toEqual(Array.from({ length: 49 }, (_, i) => new Date(range.start.getTime() + i * 3_600_000).toISOString()));
    expect(events[0]).toMatchObject({ equipment: { id: m.equipmentId }, data: { value: f.operatingHours(m, range.start) } });
  });

  it('finds the machines in the snapshot when no PIN is given, through feeds that link past the end', async () => {
    const p = provider('vendor8_connect');
    const events: NormalizedEvent[] = [];
    for await (const batch of readerFor(p)?.series?.(await ctxOf(p), { ...range, elements: ['CumulativeIdleHours'] }) ?? []) events.push(...batch);
    expect(events).toHaveLength(FLEET * 49);
    expect(new Set(events.map((e) => e.equipment.id)).size).toBe(FLEET);
    const paths = sim.requests(p.id).map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe('OEM, aggregator and TPMS mapping', () => {
  it('reads OEM telemetry with the consent token', async () => {
    for (const id of ['vendor11_operations_center', 'vendor12_fieldops']) {
      const events = await readAll(provider(id));
      const m = f.fleetOf(id, FLEET)[4] as f.Machine;
      expect(one(events, m.equipmentId, 'operating_hours')).toMatchObject({ observed_at: TICK.toISOString(), data: { value: f.operatingHours(m, TICK), unit: 'h' } });
      expect(one(events, m.equipmentId, 'fuel_remaining').data).toMatchObject({ value: f.fuelRemainingPercent(m, TICK), unit: '%' });
      expect(one(events, m.equipmentId, 'location').data).toEqual(f.positionAt(m, TICK));
    }
    const v11 = await readAll(provider('vendor11_operations_center'));
    const m = f.fleetOf('vendor11_operations_center', FLEET)[0] as f.Machine;
    expect(v11.find((e) => e.equipment.id === m.equipmentId)?.equipment).toEqual({ id: m.equipmentId, oem: m.oemName, model: m.model, serial: null, pin: m.pin });
  });

  it('converts each aggregator to hours, percent, km and UTC times', async () => {
    const pick = async (id: string, equipmentId: (m: f.Machine) => string) => {
      const events = await readAll(provider(id));
      const m = f.fleetOf(id, FLEET)[3] as f.Machine;
      return { events, m, id: equipmentId(m) };
    };
    const v14 = await pick('vendor14', (m) => String(m.index + 14_000));
    const h14 = one(v14.events, v14.id, 'operating_hours');
    expect(h14.observed_at).toBe(TICK.toISOString());
    expect(h14.data).toMatchObject({ unit: 'h', source: { unit: 's', value: Math.round(f.operatingHours(v14.m, TICK) * 3600) } });
    expect(h14.data.value).toBeCloseTo(f.operatingHours(v14.m, TICK), 2);
    expect(one(v14.events, v14.id, 'fuel_remaining').data).toMatchObject({ unit: 'L', value: Math.round((v14.m.tankLitres * f.fuelRemainingPercent(v14.m, TICK)) / 100) });
    const v15 = await pick('vendor15', (m) => m.equipmentId);
    expect(one(v15.events, v15.id, 'location')).toMatchObject({ observed_at: TICK.toISOString(), data: f.positionAt(v15.m, TICK) });
    const v16 = await pick('vendor16', (m) => m.equipmentId);
    const h16 = one(v16.events, v16.id, 'operating_hours');
    expect(h16.observed_at).toBe(TICK.toISOString());
    expect(Math.abs(h16.data.value - f.operatingHours(v16.m, TICK))).toBeLessThanOrEqual(0.01);
    expect(h16.data.source.unit).toBe('min');
    const v17 = await pick('vendor17', (m) => m.equipmentId);
    expect(one(v17.events, v17.id, 'distance').data).toMatchObject({ value: f.odometerKm(v17.m, TICK), unit: 'km' });
  });

  it('reads TPMS wheels in kPa and °C with their positions, and alerts', async () => {
    const v19 = await readAll(provider('vendor19_connect'));
    const raw = (await (await fetch(`${sim.url}/vendor19_connect/v1/vehicles`, { headers: { 'x-api-key': 'k-live-0123456789' } })).json()) as {
      vehicleId: string;
      wheels: { wheelPosition: string; pressurePsi: number; tempF: number }[];
    }[];
    for (const vehicle of raw) {
      for (const w of vehicle.wheels) {
        const pressure = v19.find((e) => e.type === 'tire_pressure' && e.equipment.id === vehicle.vehicleId && e.data.position === w.wheelPosition);
        expect(pressure?.data).toEqual({ position: w.wheelPosition, value: Number((w.pressurePsi * 6.894757293168361).toFixed(1)), unit: 'kPa', source: { value: w.pressurePsi, unit: 'psi' } });
        const temp = v19.find((e) => e.type === 'tire_temperature' && e.equipment.id === vehicle.vehicleId && e.data.position === w.wheelPosition);
        expect(temp?.data).toMatchObject({ value: Number((((w.tempF - 32) * 5) / 9).toFixed(1)), unit: '°C' });
      }
    }
    const v18 = await readAll(provider('vendor18_tyresense'));
    const alerts = v18.filter((e) => e.type === 'tpms_alert');
    // Every fourth vehicle has one under-inflated tire.
    expect(alerts).toHaveLength(FLEET / 4);
    for (const a of alerts) {
      expect(a.data).toMatchObject({ code: 'low_pressure', severity: 'warning', pressure: { unit: 'kPa', source: { unit: 'bar' } } });
      const tire = v18.find((e): e is Extract<NormalizedEvent, { type: 'tire_pressure' }> => e.type === 'tire_pressure' && e.equipment.id === a.equipment.id && e.data.position === a.data.position);
      expect(tire?.data.value).toBe(a.data.pressure?.value);
      expect(a.data.pressure?.value).toBeLessThan(720);
    }
  });
});

describe('normalization', () => {
  it('reads ISO times to ms UTC with Z and refuses placeholders and impossible dates', () => {
    expect(isoTime('2026-01-05T08:00:00Z')).toBe('2026-01-05T08:00:00.000Z');
    expect(isoTime('2026-01-05T08:00:00.1239999')).toBe('2026-01-05T08:00:00.123Z');
    expect(isoTime('2026-01-05T08:00:00')).toBe('2026-01-05T08:00:00.000Z');
    expect(isoTime('2026-01-05T09:30:00+01:30')).toBe('2026-01-05T08:00:00.000Z');
    expect(isoTime('0001-01-01T00:00:00')).toBeUndefined();
    expect(isoTime('2026-02-30T00:00:00Z')).toBeUndefined();
    expect(isoTime('yesterday')).toBeUndefined();
  });

  it('converts units and keeps the source', () => {
    expect(toKpa(2.5, 'bar')).toEqual({ value: 250, unit: 'kPa', source: { value: 2.5, unit: 'bar' } });
    expect(toKpa(34, 'psi')?.value).toBe(234.4);
    expect(toCelsius(212, '°F')?.value).toBe(100);
    expect(toKm(10, 'miles')?.value).toBe(16.1);
    expect(toLitres(10, 'gallon')?.value).toBe(37.9);
    expect(toHours(90, 'min')?.value).toBe(1.5);
    expect(toKm(10, 'furlongs')).toBeUndefined();
  });
});

describe('large fleets', () => {
  let big: VendorSim;
  beforeAll(async () => {
    big = await startVendorSim({ fleetSize: 2000, pageSize: 100, now: () => NOW });
  });
  afterAll(async () => {
    await big.close();
  });

  it('streams an XML fleet page by page: batches arrive before the later pages are asked for', async () => {
    const p = provider('vendor1_livelink');
    const reader = readerFor(p);
    const pagesAsked = (): string[] => big.requests(p.id).map((r) => r.path);
    let firstBatchPages: string[] | undefined;
    let batches = 0;
    const machines = new Set<string>();
    for await (const batch of reader?.snapshot(await ctxOf(p, { batchSize: 200 }, big)) ?? []) {
      firstBatchPages ??= pagesAsked();
      batches += 1;
      expect(batch.length).toBeLessThanOrEqual(200);
      for (const e of batch) machines.add(e.equipment.id);
    }
    expect(firstBatchPages?.includes(`/${p.id}/Fleet/2`)).toBe(false);
    expect(machines.size).toBe(2000);
    expect(batches).toBe(2000 * 8 / 200);
    expect(pagesAsked()).toHaveLength(20);
  });
});
