import { DEFAULT_FLEET_PATH, DEFAULT_SERIES_PATH, fillPath } from '../adapter.js';
import type { NormalizedEvent } from '../event.js';
import { isoTime } from '../normalize.js';
import { Batcher, dataHeaders, type ReaderContext, type SeriesMachine, type SeriesRange, type VendorReader } from '../reader.js';
import { equipmentEvents, isoEquipment, isReading, readingEvents } from './elements.js';
import { child, type IsoNode } from './iso-xml.js';
import { pagedNodes } from './paging.js';

/**
 * ISO 15143-3 (AEMP 2.0) feeds, XML or JSON: the fleet snapshot `/Fleet/{page}` and the time series
 * `/Fleet/Equipment/ID/{pin}/{DataElement}/{start}/{end}/{page}` (or the paths and series host the operator
 * configured), both paged through `Links`.
 */

/** Time-series data elements the reader maps (the URL name; items inside are named in the singular for two of them). */
const ISO_SERIES_ELEMENTS = ['Locations', 'CumulativeOperatingHours', 'CumulativeIdleHours', 'FuelUsed', 'FuelRemaining', 'DEFRemaining', 'EngineCondition', 'Distance', 'FaultCodes'] as const;

/** Feeds refuse longer windows (31 days); longer ranges are read window by window. */
const MAX_WINDOW_MS = 31 * 24 * 3_600_000;

const isEquipment = (node: IsoNode): boolean => node.name.toLowerCase() === 'equipment';
const isHeader = (node: IsoNode): boolean => node.name.toLowerCase() === 'equipmentheader';
/** The root's own fields (`snapshotTime`, `version`: attributes in XML, plain keys in JSON) are leaves among its children. */
const isDocumentField = (node: IsoNode): boolean => node.children.length === 0 && Object.keys(node.attrs).length === 0;


/** The fleet page's path: the configured template with the connection's fleet id, else `/Fleet/{page}`. */
export const fleetPathOf = (ctx: Pick<ReaderContext, 'endpoint' | 'fleetId'>, page: number): string => fillPath(ctx.endpoint.fleetPath ?? DEFAULT_FLEET_PATH, { fleet_id: ctx.fleetId, page });

const snapshotPages = <T>(ctx: ReaderContext, headers: Record<string, string>, read: (nodes: IsoNode[]) => T) => pagedNodes(ctx, headers, (page) => fleetPathOf(ctx, page), 'Fleet', isEquipment, read);

/** The standard's `YYYY-MM-DDThh:mm:ssZ`: feeds refuse the fractions toISOString() writes. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function* snapshot(ctx: ReaderContext): AsyncGenerator<NormalizedEvent[]> {
  const headers = await dataHeaders(ctx);
  const batcher = new Batcher(ctx);
  // Each page says when it was taken; a machine seen without readings is dated by it.
  let snapshotAt: string | undefined;
  const read = (nodes: IsoNode[]): NormalizedEvent[][] => {
    for (const node of nodes) {
      if (isEquipment(node)) for (const event of equipmentEvents(ctx, node, snapshotAt)) batcher.add(event);
      else if (node.name.toLowerCase() === 'snapshottime') snapshotAt = isoTime(node.text) ?? snapshotAt;
      else if (!isDocumentField(node)) ctx.report?.('unmapped_element', `Fleet ${node.name}`);
    }
    return batcher.fullBatches();
  };
  for await (const batches of snapshotPages(ctx, headers, read)) yield* batches;
  const rest = batcher.rest();
  if (rest !== undefined) yield rest;
}

/**
 * The machines to replay: the PINs asked for, else every machine of the snapshot. The snapshot's headers are read
 * first (a few hundred bytes a machine) rather than held open while the series is read machine by machine, which
 * could take long enough for the vendor to drop the paused answer.
 */
async function seriesMachines(ctx: ReaderContext, headers: Record<string, string>, range: SeriesRange): Promise<SeriesMachine[]> {
  if (range.machines !== undefined) return [...range.machines];
  if (range.pins !== undefined) return range.pins.map((pin) => ({ pin, equipment: { id: pin, oem: null, model: null, serial: null, pin } }));
  return fleetMachines(ctx, headers);
}

/** Every machine of the fleet snapshot that has a PIN (the series are keyed by it). */
async function fleetMachines(ctx: ReaderContext, headers: Record<string, string>): Promise<SeriesMachine[]> {
  const machines: SeriesMachine[] = [];
  const read = (nodes: IsoNode[]): void => {
    for (const node of nodes) {
      const equipment = isEquipment(node) ? isoEquipment(ctx, child(node, 'EquipmentHeader')) : undefined;
      if (equipment?.pin != null) machines.push({ pin: equipment.pin, equipment });
    }
  };
  for await (const _ of snapshotPages(ctx, headers, read));
  return machines;
}

function windowsOf(range: SeriesRange): { start: string; end: string }[] {
  const out: { start: string; end: string }[] = [];
  // Whole seconds (the URL has no finer unit), and windows a second apart, so a reading on a boundary comes once.
  const first = Math.floor(range.start.getTime() / 1000) * 1000;
  const end = Math.floor(range.end.getTime() / 1000) * 1000;
  for (let from = first; from <= end; from += MAX_WINDOW_MS + 1000) {
    out.push({ start: isoSeconds(from), end: isoSeconds(Math.min(from + MAX_WINDOW_MS, end)) });
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
        const values = { fleet_id: ctx.fleetId, pin: machine.pin, element, start: window.start, end: window.end };
        const pathOf = (page: number) => fillPath(ctx.endpoint.seriesPath ?? DEFAULT_SERIES_PATH, { ...values, page });
        let equipment = machine.equipment;
        const read = (nodes: IsoNode[]): NormalizedEvent[][] => {
          // JSON feeds may put the header after the readings it names.
          const header = nodes.find(isHeader);
          if (header !== undefined) equipment = isoEquipment(ctx, header, equipment) ?? equipment;
          for (const node of nodes) if (!isHeader(node) && !isDocumentField(node)) for (const event of readingEvents(ctx, equipment, node)) batcher.add(event);
          return batcher.fullBatches();
        };
        for await (const batches of pagedNodes(ctx, headers, pathOf, element, isReading, read, ctx.endpoint.seriesBaseUrl)) yield* batches;
      }
    }
  }
  const rest = batcher.rest();
  if (rest !== undefined) yield rest;
}

export const iso15143Reader: VendorReader = {
  snapshot,
  series,
  history: { elements: ISO_SERIES_ELEMENTS, machines: async (ctx) => fleetMachines(ctx, await dataHeaders(ctx)) },
};
