import { DEFAULT_FLEET_PATH, DEFAULT_SERIES_PATH, fillPath } from '../adapter.js';
import type { Equipment, NormalizedEvent } from '../event.js';
import { Batcher, dataHeaders, type ReaderContext, type SeriesRange, type VendorReader } from '../reader.js';
import { equipmentEvents, isoEquipment, READINGS, readingEvents } from './elements.js';
import { child } from './iso-xml.js';
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

/** The fleet page's path: the configured template with the connection's fleet id, else `/Fleet/{page}`. */
export const fleetPathOf = (ctx: Pick<ReaderContext, 'endpoint' | 'fleetId'>, page: number): string => fillPath(ctx.endpoint.fleetPath ?? DEFAULT_FLEET_PATH, { fleet_id: ctx.fleetId, page });

const snapshotPages = (ctx: ReaderContext, headers: Record<string, string>) => pagedNodes(ctx, headers, (page) => fleetPathOf(ctx, page), 'Fleet', (n) => n.name === 'Equipment');

/** The standard's `YYYY-MM-DDThh:mm:ssZ`: feeds refuse the fractions toISOString() writes. */
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

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
        for await (const nodes of pagedNodes(ctx, headers, pathOf, element, (n) => READINGS.has(n.name), ctx.endpoint.seriesBaseUrl)) {
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
