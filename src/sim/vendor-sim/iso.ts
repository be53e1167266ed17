import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Provider } from '../../modules/telematics/providers/catalog.js';
import { requireAuth } from './auth.js';
import type { RegisterRoutes, SimContext } from './context.js';
import { OTHER_HOST, type FleetEndpoints } from './fleet-endpoints.js';
import * as f from './fleet.js';
import type { IsoDialect } from './iso-dialect.js';
import { el, leaf, prefixed, toJson, toXml, type El } from './iso-doc.js';
import { listedMachines, type ReadingQuirks, readingTimes } from './reading-quirks.js';

/**
 * ISO 15143-3 (AEMP 2.0) feeds: `GET /Fleet/{page}` (snapshot, pages from 1) and
 * `GET /Fleet/Equipment/ID/{pin}/{DataElement}/{start}/{end}/{page}` (hourly time series, at most 31 days); per fleet
 * (FleetEndpoints) `/{fleetId}/Fleet/{page}`, pages from 0, the series without `ID/` or on the other host.
 * Real feeds differ in small ways that break naive clients; each provider shows some of them:
 *
 * | provider            | format | namespace | datetime  | Links on the last page / past it     | times                           | unknown times |
 * |---------------------|--------|-----------|-----------|--------------------------------------|---------------------------------|---------------|
 * | vendor1_livelink    | xml    | AEMP 2.0  | attribute | no next                              | 2026-01-05T08:00:00Z            | -             |
 * | vendor2_machineiq   | json   | -         | key       | no next                              | 2026-01-05T08:00:00.000Z        | -             |
 * | vendor3_himate      | xml    | JCMA 2019 | element   | next -> Fleet/0 (served as page 1)   | 2026-01-05T08:00:00Z            | placeholder   |
 * | vendor4_caretrack   | xml    | AEMP 2.0  | attribute | next -> Fleet/1                      | 2026-01-05T08:00:00.000Z        | -             |
 * | vendor5_visionlink  | json   | -         | key       | no next                              | 2026-01-05T08:00:00.0000000     | -             |
 * | vendor6_lida        | json   | -         | key       | next on every page, empty ones too   | 2026-01-05T08:00:00Z            | -             |
 * | vendor7_consite     | xml    | JCMA 2019 | element   | no next                              | 2026-01-05T08:00:00             | placeholder   |
 * | vendor8_connect     | xml    | AEMP 2.0  | attribute | next on every page, empty ones too   | 2026-01-05T08:00:00.0000000     | -             |
 * | vendor9_sitewatch   | json   | -         | key       | next -> Fleet/1                      | 2026-01-05T08:00:00Z            | placeholder   |
 * | vendor10_fleetforce | json   | -         | key       | no next                              | 2026-01-05T08:00:00             | -             |
 *
 * "placeholder": UnitInstallDateTime is always, and every sixth machine's Location datetime is, `0001-01-01T00:00:00`.
 * A fleet's `dialect` (iso-dialect.ts) changes any of this per account, and adds what other feeds do.
 */
interface IsoVariant {
  namespace: 'aemp2' | 'jcma';
  datetime: 'attribute' | 'element';
  links: 'standard' | 'last_next_to_0' | 'last_next_to_1' | 'empty_page_next';
  times: 'z' | 'fractional_z' | 'fractional_no_z' | 'no_z';
  unknownTimes: boolean;
}

const v = (namespace: IsoVariant['namespace'], datetime: IsoVariant['datetime'], links: IsoVariant['links'], times: IsoVariant['times'], unknownTimes = false): IsoVariant => ({
  namespace,
  datetime,
  links,
  times,
  unknownTimes,
});

const ISO_VARIANTS: Readonly<Record<string, IsoVariant>> = {
  vendor1_livelink: v('aemp2', 'attribute', 'standard', 'z'),
  vendor2_machineiq: v('aemp2', 'attribute', 'standard', 'fractional_z'),
  vendor3_himate: v('jcma', 'element', 'last_next_to_0', 'z', true),
  vendor4_caretrack: v('aemp2', 'attribute', 'last_next_to_1', 'fractional_z'),
  vendor5_visionlink: v('aemp2', 'attribute', 'standard', 'fractional_no_z'),
  vendor6_lida: v('aemp2', 'attribute', 'empty_page_next', 'z'),
  vendor7_consite: v('jcma', 'element', 'standard', 'no_z', true),
  vendor8_connect: v('aemp2', 'attribute', 'empty_page_next', 'fractional_no_z'),
  vendor9_sitewatch: v('aemp2', 'attribute', 'last_next_to_1', 'z', true),
  vendor10_fleetforce: v('aemp2', 'attribute', 'standard', 'no_z'),
};

const DEFAULT_VARIANT = v('aemp2', 'attribute', 'standard', 'z');

const NAMESPACES = {
  aemp2: 'http://standards.iso.org/iso/15143/-3',
  // The Japanese construction machinery association's namespace, still served by some OEM feeds.
  jcma: 'http://www.jcmanet.or.jp/english2017/ISO/15143/-3/20190501',
} as const;

const UNKNOWN_TIME = '0001-01-01T00:00:00';
const HOUR_MS = 3_600_000;
const MAX_SERIES_MS = 31 * 24 * HOUR_MS;

function formatTime(variant: IsoVariant, at: Date): string {
  const iso = at.toISOString();
  switch (variant.times) {
    case 'z':
      return `${iso.slice(0, 19)}Z`;
    case 'fractional_z':
      return iso;
    case 'fractional_no_z':
      return `${iso.slice(0, 23)}0000`;
    case 'no_z':
      return iso.slice(0, 19);
  }
}

interface Series {
  item: string;
  body(m: f.Machine, at: Date): El[];
  /** Only readings where this holds exist (fault codes are events, not samples). */
  present?(m: f.Machine, at: Date): boolean;
}

const SERIES: Readonly<Record<string, Series>> = {
  Locations: {
    item: 'Location',
    body: (m, at) => {
      const p = f.positionAt(m, at);
      return [leaf('Latitude', p.latitude), leaf('Longitude', p.longitude)];
    },
  },
  CumulativeOperatingHours: { item: 'CumulativeOperatingHours', body: (m, at) => [leaf('Hour', f.operatingHours(m, at))] },
  CumulativeIdleHours: { item: 'CumulativeIdleHours', body: (m, at) => [leaf('Hour', f.idleHours(m, at))] },
  FuelUsed: { item: 'FuelUsed', body: (m, at) => [leaf('FuelUnits', 'litre'), leaf('FuelConsumed', f.fuelUsedLitres(m, at))] },
  FuelRemaining: { item: 'FuelRemaining', body: (m, at) => [leaf('Percent', f.fuelRemainingPercent(m, at))] },
  DEFRemaining: { item: 'DEFRemaining', body: (m, at) => [leaf('Percent', f.defRemainingPercent(m, at))] },
  EngineCondition: { item: 'EngineCondition', body: (m, at) => [leaf('Message', f.engineRunning(m, at) ? 'EngineOn' : 'EngineOff')] },
  Distance: { item: 'Distance', body: (m, at) => [leaf('OdometerUnits', 'kilometre'), leaf('Odometer', f.odometerKm(m, at))] },
  FaultCodes: {
    item: 'FaultCode',
    present: (m, at) => f.faultAt(m, at) !== undefined,
    body: (m, at) => {
      const fault = f.faultAt(m, at);
      return fault === undefined
        ? []
        : [leaf('CodeIdentifier', fault.id), leaf('CodeDescription', fault.description), leaf('CodeSeverity', fault.severity), leaf('CodeSource', 'ECM')];
    },
  },
};

const SNAPSHOT_ELEMENTS = ['Locations', 'CumulativeOperatingHours', 'CumulativeIdleHours', 'FuelUsed', 'FuelRemaining', 'DEFRemaining', 'Distance'] as const;

function timed(variant: IsoVariant, name: string, datetime: string, children: El[]): El {
  return variant.datetime === 'attribute' ? el(name, children, { datetime }) : el(name, [...children, leaf('datetime', datetime)]);
}

function header(variant: IsoVariant, m: f.Machine, dialect: IsoDialect = {}): El {
  const installed = variant.unknownTimes ? UNKNOWN_TIME : formatTime(variant, new Date(Date.UTC(2023, 0, 1 + m.index)));
  if (dialect.anonymous?.includes(m.index)) {
    return el('EquipmentHeader', [leaf('UnitInstallDateTime', installed), leaf('OEMName', m.oemName), leaf('Model', m.model), leaf('SerialNumber', 'missing'), leaf('PIN', 'missing')]);
  }
  const placeholder = dialect.placeholders?.includes(m.index) === true;
  return el('EquipmentHeader', [
    leaf('UnitInstallDateTime', placeholder ? UNKNOWN_TIME : installed),
    leaf('OEMName', placeholder ? '' : m.oemName),
    leaf('Model', placeholder ? 'missing' : m.model),
    leaf('EquipmentID', m.equipmentId),
    leaf('SerialNumber', placeholder ? 'missing' : m.serialNumber),
    leaf('PIN', m.pin),
    ...(dialect.extraElements === true ? [leaf('EngineNumber', `EN${m.serialNumber}`)] : []),
  ]);
}

/** Machines last reported a few minutes apart, on a 10-minute grid, so a fixed clock gives a fixed snapshot. */
const reportedAt = (m: f.Machine, now: Date): Date => new Date(Math.floor(now.getTime() / 600_000) * 600_000 - m.index * 7 * 60_000);

/** A snapshot reading's children as the dialect names them (MiX-style feeds put the unit in the name). */
function snapshotBody(name: string, m: f.Machine, at: Date, dialect: IsoDialect): El[] {
  if (name === 'Locations' && dialect.extraElements === true) return [...(SERIES.Locations as Series).body(m, at), leaf('AltitudeUnits', 'metre'), leaf('Altitude', f.altitudeMetres(m))];
  if (name === 'Distance' && dialect.unknownUnit === true) return [leaf('OdometerUnits', 'furlong'), leaf('Odometer', f.odometerKm(m, at))];
  if (name === 'Distance' && dialect.mixNames === true) return [leaf('OdometerKilometre', f.odometerKm(m, at))];
  if (name === 'FuelUsed' && dialect.mixNames === true) return [leaf('FuelConsumedLitres', f.fuelUsedLitres(m, at))];
  return (SERIES[name] as Series).body(m, at);
}

/** The readings some feeds add to the usual snapshot, by element name. */
function extraReadings(m: f.Machine, at: Date, dialect: IsoDialect): [string, El[]][] {
  const out: [string, El[]][] = [];
  if (dialect.mixNames === true || dialect.extraElements === true) {
    out.push(['CumulativeIdleNonOperatingHours', [leaf('Hour', f.idleNonOperatingHours(m, at))]]);
    out.push(['FuelUsedLast24', dialect.mixNames === true ? [leaf('FuelConsumedLitres', f.fuelUsedLast24Litres(m))] : [leaf('FuelUnits', 'litre'), leaf('FuelConsumed', f.fuelUsedLast24Litres(m))]]);
  }
  if (dialect.extraElements === true) {
    out.push(['CumulativePowerTakeOffHours', [leaf('Hour', f.ptoHours(m, at))]]);
    out.push(['FuelTankCapacity', [leaf('FuelTankCapacityUnits', 'litre'), leaf('FuelTankCapacity', m.tankLitres)]]);
    out.push(['DEFTankCapacity', [leaf('DEFTankCapacityUnits', 'litre'), leaf('DEFTankCapacity', f.defTankLitres(m))]]);
    out.push(['CumulativeLoadCount', [leaf('Count', f.loadCount(m, at))]]);
    out.push(['CumulativePayloadTotals', [leaf('PayloadUnits', 'metric tonne'), leaf('Payload', f.payloadTonnes(m, at))]]);
  }
  if (dialect.unmappedElement === true) out.push(['BatteryPotential', [leaf('BatteryPotential', 13.3)]]);
  return out;
}

function equipment(variant: IsoVariant, m: f.Machine, now: Date, fleetSize: number, quirks: ReadingQuirks, dialect: IsoDialect = {}): El {
  if (dialect.headerOnly?.includes(m.index)) return el('Equipment', [header(variant, m, dialect)]);
  const { taken: at, stamped } = readingTimes(m, reportedAt(m, now), now, fleetSize, quirks);
  const stamp = formatTime(variant, stamped);
  const elements = SNAPSHOT_ELEMENTS.map((name) => {
    const series = SERIES[name] as Series;
    const unknown = variant.unknownTimes && name === 'Locations' && m.index % 6 === 5;
    return timed(variant, series.item, unknown ? UNKNOWN_TIME : stamp, snapshotBody(name, m, at, dialect));
  });
  const extra = extraReadings(m, at, dialect).map(([name, body]) => timed(variant, name, stamp, body));
  return el('Equipment', [header(variant, m, dialect), ...elements, timed(variant, 'EngineStatus', stamp, [leaf('Running', f.engineRunning(m, at))]), ...extra]);
}

/** `self` is the page as asked (0 stays 0); the others follow from the page served. */
function links(variant: IsoVariant, href: (page: number) => string, self: number, page: number, lastPage: number, name = 'Links'): El[] {
  const link = (rel: string, n: number): El => el(name, [leaf('rel', rel), leaf('href', href(n))]);
  const out = [link('self', self)];
  if (page > 1 && page <= lastPage) out.push(link('prev', page - 1));
  const next =
    page < lastPage
      ? page + 1
      : variant.links === 'empty_page_next'
        ? page + 1
        : page === lastPage && variant.links === 'last_next_to_0'
          ? 0
          : page === lastPage && variant.links === 'last_next_to_1'
            ? 1
            : undefined;
  if (next !== undefined) out.push(link('next', next));
  out.push(link('last', lastPage));
  return out;
}

const linksName = (dialect: IsoDialect): string => (dialect.lowerCaseLinks === true ? 'links' : 'Links');

/** The document as the fleet's dialect writes it: format, namespace prefix, attribute keys, a wrapping array, leading blanks. */
function send(reply: FastifyReply, provider: Provider, dialect: IsoDialect, root: El, arrays: string[], cut = false): FastifyReply {
  const prefix = dialect.namespace === 'prefixed' ? 'aemp' : undefined;
  const doc = prefix === undefined ? root : prefixed(root, prefix);
  const names = prefix === undefined ? arrays : arrays.map((a) => `${prefix}:${a}`);
  // The fleet's dialect first, else the format the client asks for (real feeds negotiate), else the provider's own.
  const accept = String(reply.request.headers.accept ?? '');
  const negotiated = accept.includes('application/json') ? 'json' : accept.includes('application/xml') ? 'xml' : provider.format;
  const xml = (dialect.format ?? negotiated) === 'xml';
  const json = (): string => {
    const page = toJson(doc, names, dialect.datetime === 'attribute' ? '@' : '');
    return JSON.stringify(dialect.topLevelArray === true ? [page] : page);
  };
  const whole = xml ? toXml(doc) : json();
  const body = `${dialect.leadingWhitespace ?? ''}${cut ? whole.slice(0, Math.floor(whole.length / 2)) : whole}`;
  return reply.type(xml ? 'application/xml; charset=utf-8' : 'application/json; charset=utf-8').send(body);
}

const badRequest = (reply: FastifyReply, message: string): FastifyReply => reply.code(400).send({ error: 'bad_request', message });

/** Page 0 is served as page 1: feeds that number from 0 link to it, and a client that follows them must see the repeat. */
function pageOf(raw: string): number | undefined {
  return /^\d{1,6}$/.test(raw) ? Math.max(1, Number(raw)) : undefined;
}

function rootAttrs(variant: IsoVariant, ctx: SimContext, dialect: IsoDialect): Record<string, string> {
  const uri = NAMESPACES[variant.namespace];
  const namespace: Record<string, string> = dialect.namespace === 'none' ? {} : dialect.namespace === 'prefixed' ? { 'xmlns:aemp': uri } : { xmlns: uri };
  return { ...namespace, version: '1', snapshotTime: formatTime(variant, ctx.now()) };
}

/** The provider's way of writing, with what the fleet's dialect changes of it. */
function variantOf(base: IsoVariant, dialect: IsoDialect): IsoVariant {
  return { ...base, ...(dialect.datetime === undefined ? {} : { datetime: dialect.datetime }), ...(dialect.times === undefined ? {} : { times: dialect.times }) };
}

const notFound = (reply: FastifyReply): FastifyReply => reply.code(404).send({ error: 'not_found', message: 'no such resource' });

/** The feed's first page number for this fleet, and a page number as asked turned into 1-based (undefined: not a page). */
const firstOf = (ends: FleetEndpoints | undefined): number => ends?.firstPage ?? 1;
function pageFrom(raw: string, first: number): number | undefined {
  // Feeds from 1 serve page 0 as page 1: feeds that number from 0 link to it, and a client that follows them must see the repeat.
  if (first === 1) return pageOf(raw);
  return /^\d{1,6}$/.test(raw) ? Number(raw) + 1 : undefined;
}

export const registerIsoRoutes: RegisterRoutes = (app, provider, ctx) => {
  const providerVariant = ISO_VARIANTS[provider.id] ?? DEFAULT_VARIANT;
  const fleet = f.fleetOf(provider.id, ctx.fleetSize);
  const origin = (request: FastifyRequest): string => `${request.protocol}://${request.headers.host ?? 'localhost'}/${provider.id}`;
  const guarded = { preHandler: requireAuth(provider, ctx) };

  const fleetPage = (request: FastifyRequest, reply: FastifyReply, raw: string, fleetId: string | undefined): FastifyReply => {
    const ends = ctx.fleet(provider.id, request).endpoints;
    if (ends?.fleetId !== fleetId || ends?.missingPages?.includes(Number(raw)) === true) return notFound(reply);
    const first = firstOf(ends);
    const page = pageFrom(raw, first);
    if (page === undefined) return badRequest(reply, 'page must be a whole number');
    const behaviour = ctx.fleet(provider.id, request);
    const dialect = behaviour.dialect ?? {};
    const quirks = behaviour.readings ?? {};
    const variant = variantOf(providerVariant, dialect);
    const listed = listedMachines(provider.id, fleet, quirks);
    const lastPage = Math.max(1, Math.ceil(listed.length / ctx.pageSize));
    const rows = listed.slice((page - 1) * ctx.pageSize, page * ctx.pageSize).map((m) => equipment(variant, m, ctx.now(), fleet.length, quirks, dialect));
    const base = `${origin(request)}${fleetId === undefined ? '' : `/${encodeURIComponent(fleetId)}`}/Fleet`;
    // Links number pages as the feed does: from 0 where it counts from 0.
    const href = (n: number) => `${base}/${n + first - 1}`;
    const root = el('Fleet', [...links(variant, href, Number(raw) - first + 1, page, lastPage, linksName(dialect)), ...rows], rootAttrs(variant, ctx, dialect));
    return send(reply, provider, dialect, root, [linksName(dialect), 'Equipment'], dialect.brokenPage === page);
  };
  app.get<{ Params: { page: string } }>('/Fleet/:page', guarded, async (request, reply) => fleetPage(request, reply, request.params.page, undefined));
  app.get<{ Params: { fleetId: string; page: string } }>('/:fleetId/Fleet/:page', guarded, async (request, reply) => fleetPage(request, reply, request.params.page, request.params.fleetId));
  registerIsoSeriesRoutes(app, provider, ctx);
};

/**
 * The time series, `ID/` form and the form without it, on the vendor's host and (registered again under
 * `/other-host/<provider>`) its other one: each fleet is served by the one form and host its FleetEndpoints say.
 */
export const registerIsoSeriesRoutes: RegisterRoutes = (app, provider, ctx) => {
  const providerVariant = ISO_VARIANTS[provider.id] ?? DEFAULT_VARIANT;
  const fleet = f.fleetOf(provider.id, ctx.fleetSize);
  const guarded = { preHandler: requireAuth(provider, ctx) };
  type SeriesParams = { pin: string; element: string; start: string; end: string; page: string };

  const seriesPage = (request: FastifyRequest<{ Params: SeriesParams }>, reply: FastifyReply, withId: boolean): FastifyReply => {
    const behaviour = ctx.fleet(provider.id, request);
    const ends = behaviour.endpoints;
    const dialect = behaviour.dialect ?? {};
    const variant = variantOf(providerVariant, dialect);
    const otherHost = request.url.startsWith(`/${OTHER_HOST}/`);
    if ((ends?.seriesWithoutId === true) === withId || (ends?.seriesOnOtherHost === true) !== otherHost) return notFound(reply);
    const { pin, element, start, end } = request.params;
    const machine = listedMachines(provider.id, fleet, behaviour.readings ?? {}).find((m) => m.pin === pin);
    const series = SERIES[element];
    if (machine === undefined || series === undefined) return reply.code(404).send({ error: 'not_found', message: 'unknown equipment or data element' });
    const first = firstOf(ends);
    const page = pageFrom(request.params.page, first);
    // The standard's YYYY-MM-DDThh:mm:ssZ only, as strict feeds take it.
    const strict = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
    if (!strict.test(start) || !strict.test(end)) return badRequest(reply, 'start and end must be YYYY-MM-DDThh:mm:ssZ');
    const from = Date.parse(start);
    const to = Math.min(Date.parse(end), ctx.now().getTime());
    if (page === undefined || Number.isNaN(from) || Number.isNaN(to)) return badRequest(reply, 'start and end must be ISO 8601 times, page a whole number');
    if (to - from > MAX_SERIES_MS) return badRequest(reply, 'the time range is limited to 31 days');
    const times: Date[] = [];
    for (let t = Math.ceil(from / HOUR_MS) * HOUR_MS; t <= to; t += HOUR_MS) {
      const at = new Date(t);
      if (series.present?.(machine, at) ?? true) times.push(at);
    }
    const lastPage = Math.max(1, Math.ceil(times.length / ctx.pageSize));
    const items = times
      .slice((page - 1) * ctx.pageSize, page * ctx.pageSize)
      .map((at) => timed(variant, series.item, formatTime(variant, at), series.body(machine, at)));
    const host = `${request.protocol}://${request.headers.host ?? 'localhost'}${otherHost ? `/${OTHER_HOST}` : ''}/${provider.id}`;
    const base = `${host}/Fleet/Equipment${withId ? '/ID' : ''}/${encodeURIComponent(pin)}/${element}/${encodeURIComponent(start)}/${encodeURIComponent(end)}`;
    const href = (n: number) => `${base}/${n + first - 1}`;
    const children = [...links(variant, href, Number(request.params.page) - first + 1, page, lastPage, linksName(dialect)), header(variant, machine, dialect), ...items];
    return send(reply, provider, dialect, el(element, children, rootAttrs(variant, ctx, dialect)), [linksName(dialect), series.item]);
  };
  app.get<{ Params: SeriesParams }>('/Fleet/Equipment/ID/:pin/:element/:start/:end/:page', guarded, async (request, reply) => seriesPage(request, reply, true));
  app.get<{ Params: SeriesParams }>('/Fleet/Equipment/:pin/:element/:start/:end/:page', guarded, async (request, reply) => seriesPage(request, reply, false));
};
