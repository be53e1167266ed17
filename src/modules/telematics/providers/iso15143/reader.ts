import { VendorUnavailableError } from '../adapter.js';
import { refusedMessage } from '../vendor-auth.js';
import { callVendor, parseJson, streamVendor } from '../vendor-http.js';
import type { Equipment, EventData, EventType, NormalizedEvent } from '../event.js';
import { child, jsonRootChildren, valueOf, xmlRootChildren, type IsoNode } from './iso-xml.js';
import { booleanOf, isoTime, numberOf, toHours, toKm, toLitres, toPercent } from '../normalize.js';
import { Batcher, dataHeaders, DEFAULT_MAX_PAGES, equipmentOf, eventOf, type ReaderContext, type SeriesRange, type VendorReader } from '../reader.js';

/**
 * ISO 15143-3 (AEMP 2.0) feeds, XML or JSON: the fleet snapshot `/Fleet/{page}` and the time series
 * `/Fleet/Equipment/ID/{pin}/{DataElement}/{start}/{end}/{page}`, both paged through `Links`.
 */

/** Time-series data elements the reader maps (the URL name; items inside are named in the singular for two of them). */
const ISO_SERIES_ELEMENTS = ['Locations', 'CumulativeOperatingHours', 'CumulativeIdleHours', 'FuelUsed', 'FuelRemaining', 'DEFRemaining', 'EngineCondition', 'Distance', 'FaultCodes'] as const;

/** Feeds refuse longer windows (31 days); longer ranges are read window by window. */
const MAX_WINDOW_MS = 31 * 24 * 3_600_000;

// ---- paging

interface PageLinks {
  self?: string;
  next?: string;
  last?: string;
}

/** The page number an ISO link names: its last path segment. Feeds counting from 0 mean their first page by 0. */
export function pageNumberOf(href: string | undefined): number | undefined {
  if (href === undefined || !URL.canParse(href, 'http://base.invalid/')) return undefined;
  const segment = new URL(href, 'http://base.invalid/').pathname.replace(/\/+$/, '').split('/').at(-1) ?? '';
  return /^\d{1,9}$/.test(segment) ? Math.max(1, Number(segment)) : undefined;
}

/**
 * The page to read after `page`, or undefined at the end: an empty page, self == last, no next link, or a next link
 * back to a page already read (feeds link the last page to 0 or 1, or keep linking past the end).
 */
export function nextPage(page: number, links: PageLinks, hadContent: boolean, visited: ReadonlySet<number>): number | undefined {
  if (!hadContent) return undefined;
  const self = pageNumberOf(links.self) ?? page;
  const last = pageNumberOf(links.last);
  if (last !== undefined && self >= last) return undefined;
  const next = pageNumberOf(links.next);
  return next === undefined || visited.has(next) ? undefined : next;
}

function linkOf(node: IsoNode, links: PageLinks): void {
  const rel = valueOf(node, 'rel')?.toLowerCase();
  const href = valueOf(node, 'href');
  if (href !== undefined && (rel === 'self' || rel === 'next' || rel === 'last')) links[rel] = href;
}

/**
 * Reads pages from 1, yielding each page's root children (links excluded) as they arrive. Links are only ever read for
 * a page number: every request goes to the configured endpoint, so a feed's links cannot send credentials elsewhere.
 */
async function* pagedNodes(ctx: ReaderContext, headers: Record<string, string>, pathOf: (page: number) => string, root: string, isContent: (node: IsoNode) => boolean): AsyncGenerator<IsoNode[]> {
  const { provider, endpoint } = ctx;
  const maxPages = ctx.maxPages ?? DEFAULT_MAX_PAGES;
  const visited = new Set<number>();
  const xml = provider.format === 'xml';
  const request = { path: '', headers: { ...headers, accept: xml ? 'application/xml' : 'application/json' }, rejected: refusedMessage(provider) };
  for (let page: number | undefined = 1; page !== undefined; ) {
    if (visited.size >= maxPages) throw new VendorUnavailableError(`${provider.id} kept linking pages past ${maxPages}`, 'failed');
    visited.add(page);
    const links: PageLinks = {};
    let hadContent = false;
    const take = (nodes: IsoNode[]): IsoNode[] => {
      const content = nodes.filter((node) => {
        if (node.name === 'Links') linkOf(node, links);
        return node.name !== 'Links';
      });
      hadContent ||= content.some(isContent);
      return content;
    };
    if (xml) {
      const res = await streamVendor(provider.id, endpoint, { ...request, path: pathOf(page) });
      for await (const nodes of xmlRootChildren(provider.id, res.body, root)) yield take(nodes);
    } else {
      const res = await callVendor(provider.id, endpoint, { ...request, path: pathOf(page) });
      yield take(jsonRootChildren(provider.id, parseJson(provider.id, res), ['Links', root === 'Fleet' ? 'Equipment' : root]));
    }
    page = nextPage(page, links, hadContent, visited);
  }
}

// ---- mapping

/** The reading elements mapped to events: a page with none of them is an empty page. */
const READINGS = new Set(['Location', 'CumulativeOperatingHours', 'CumulativeIdleHours', 'FuelUsed', 'FuelRemaining', 'DEFRemaining', 'Distance', 'CumulativeDistance', 'EngineStatus', 'EngineCondition', 'FaultCode', 'FaultCodes']);

function isoEquipment(header: IsoNode | undefined, fallback?: Equipment): Equipment | undefined {
  if (header === undefined) return fallback;
  return (
    equipmentOf({
      id: valueOf(header, 'EquipmentID'),
      oem: valueOf(header, 'OEMName'),
      model: valueOf(header, 'Model'),
      serial: valueOf(header, 'SerialNumber'),
      pin: valueOf(header, 'PIN'),
    }) ?? fallback
  );
}

const numberIn = (node: IsoNode, name: string): number | undefined => numberOf(valueOf(node, name));

/** The events of one reading element (`Location`, `FuelUsed`, ...), none when its time is unknown or it is not mapped. */
function readingEvents(ctx: ReaderContext, equipment: Equipment, node: IsoNode): (NormalizedEvent | undefined)[] {
  if (node.name === 'FaultCodes') return node.children.flatMap((c) => readingEvents(ctx, equipment, c));
  const at = isoTime(valueOf(node, 'datetime'));
  const ev = <T extends EventType>(type: T, data: EventData<T>): NormalizedEvent | undefined => eventOf(ctx, equipment, type, at, data);
  switch (node.name) {
    case 'Location': {
      const latitude = numberIn(node, 'Latitude');
      const longitude = numberIn(node, 'Longitude');
      if (latitude === undefined || longitude === undefined || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return [];
      return [ev('location', { latitude, longitude })];
    }
    case 'CumulativeOperatingHours':
    case 'CumulativeIdleHours': {
      const hours = toHours(numberIn(node, 'Hour'), 'h');
      return hours === undefined ? [] : [ev(node.name === 'CumulativeOperatingHours' ? 'operating_hours' : 'idle_hours', hours)];
    }
    case 'FuelUsed': {
      const litres = toLitres(numberIn(node, 'FuelConsumed'), valueOf(node, 'FuelUnits') ?? 'litre');
      return litres === undefined ? [] : [ev('fuel_used', litres)];
    }
    case 'FuelRemaining':
    case 'DEFRemaining': {
      const percent = toPercent(numberIn(node, 'Percent'), '%');
      return percent === undefined ? [] : [ev(node.name === 'FuelRemaining' ? 'fuel_remaining' : 'def_remaining', percent)];
    }
    case 'Distance':
    case 'CumulativeDistance': {
      const km = toKm(numberIn(node, 'Odometer'), valueOf(node, 'OdometerUnits') ?? 'kilometre');
      return km === undefined ? [] : [ev('distance', km)];
    }
    case 'EngineStatus': {
      const running = booleanOf(valueOf(node, 'Running'));
      return running === undefined ? [] : [ev('engine_status', { running })];
    }
    case 'EngineCondition': {
      const message = valueOf(node, 'Message')?.toLowerCase();
      const running = message === 'engineon' ? true : message === 'engineoff' ? false : undefined;
      return running === undefined ? [] : [ev('engine_status', { running })];
    }
    case 'FaultCode': {
      const code = valueOf(node, 'CodeIdentifier');
      if (code === undefined) return [];
      const severity = valueOf(node, 'CodeSeverity');
      const description = valueOf(node, 'CodeDescription');
      return [ev('fault', { code, ...(severity === undefined ? {} : { severity }), ...(description === undefined ? {} : { description }) })];
    }
    default:
      return [];
  }
}

/** One machine's snapshot: every reading under its `Equipment`, keyed by its header. */
function equipmentEvents(ctx: ReaderContext, node: IsoNode): (NormalizedEvent | undefined)[] {
  const equipment = isoEquipment(child(node, 'EquipmentHeader'));
  if (equipment === undefined) return [];
  return node.children.filter((c) => c.name !== 'EquipmentHeader').flatMap((c) => readingEvents(ctx, equipment, c));
}

// ---- reader

const snapshotPages = (ctx: ReaderContext, headers: Record<string, string>) => pagedNodes(ctx, headers, (page) => `/Fleet/${page}`, 'Fleet', (n) => n.name === 'Equipment');

async function* snapshot(ctx: ReaderContext): AsyncGenerator<NormalizedEvent[]> {
  const headers = await dataHeaders(ctx);
  const batcher = new Batcher(ctx);
  for await (const nodes of snapshotPages(ctx, headers)) {
    for (const node of nodes) if (node.name === 'Equipment') for (const event of equipmentEvents(ctx, node)) batcher.add(event);
    for (let batch = batcher.full(); batch !== undefined; batch = batcher.full()) yield batch;
  }
  const rest = batcher.rest();
  if (rest !== undefined) yield rest;
}

/**
 * The machines to replay: the PINs asked for, else every machine of the snapshot. The snapshot's headers are read
 * first (a few hundred bytes a machine) rather than held open while the series is read machine by machine, which
 * could take long enough for the vendor to drop the paused answer.
 */
async function seriesMachines(ctx: ReaderContext, headers: Record<string, string>, range: SeriesRange): Promise<{ pin: string; equipment: Equipment }[]> {
  if (range.pins !== undefined) return range.pins.map((pin) => ({ pin, equipment: { id: pin, oem: null, model: null, serial: null, pin } }));
  const machines: { pin: string; equipment: Equipment }[] = [];
  for await (const nodes of snapshotPages(ctx, headers)) {
    for (const node of nodes) {
      const equipment = node.name === 'Equipment' ? isoEquipment(child(node, 'EquipmentHeader')) : undefined;
      if (equipment?.pin != null) machines.push({ pin: equipment.pin, equipment });
    }
  }
  return machines;
}

function windowsOf(range: SeriesRange): { start: string; end: string }[] {
  const out: { start: string; end: string }[] = [];
  // Windows do not overlap, so a reading on a boundary comes once.
  for (let from = range.start.getTime(); from <= range.end.getTime(); from += MAX_WINDOW_MS + 1) {
    const to = Math.min(from + MAX_WINDOW_MS, range.end.getTime());
    out.push({ start: new Date(from).toISOString(), end: new Date(to).toISOString() });
  }
  return out;
}

async function* series(ctx: ReaderContext, range: SeriesRange): AsyncGenerator<NormalizedEvent[]> {
  const headers = await dataHeaders(ctx);
  const batcher = new Batcher(ctx);
  const elements = range.elements ?? ISO_SERIES_ELEMENTS;
  for (const machine of await seriesMachines(ctx, headers, range)) {
    for (const element of elements) {
      for (const window of windowsOf(range)) {
        const base = `/Fleet/Equipment/ID/${encodeURIComponent(machine.pin)}/${encodeURIComponent(element)}/${encodeURIComponent(window.start)}/${encodeURIComponent(window.end)}`;
        let equipment = machine.equipment;
        for await (const nodes of pagedNodes(ctx, headers, (page) => `${base}/${page}`, element, (n) => READINGS.has(n.name))) {
          for (const node of nodes) {
            if (node.name === 'EquipmentHeader') equipment = isoEquipment(node, equipment) ?? equipment;
            else for (const event of readingEvents(ctx, equipment, node)) batcher.add(event);
          }
          for (let batch = batcher.full(); batch !== undefined; batch = batcher.full()) yield batch;
        }
      }
    }
  }
  const rest = batcher.rest();
  if (rest !== undefined) yield rest;
}

export const iso15143Reader: VendorReader = { snapshot, series };
