import { VendorDocumentInvalidError } from '../adapter.js';
import type { Equipment, NormalizedEvent } from '../event.js';
import { at, listAt, textAt } from '../json.js';
import { getJson } from '../json-feed.js';
import { epochTime, isoTime, numberOf, toHours, toPercent } from '../normalize.js';
import { Batcher, dataHeaders, equipmentOf, eventOf, type ReaderContext, type VendorReader } from '../reader.js';

/** OEM platforms behind browser consent: given the connection's access token, `/api/machines` then each machine's telemetry. */

interface OemApi {
  machines(body: unknown): unknown[] | undefined;
  equipment(machine: unknown): Equipment | undefined;
  telemetry(ctx: ReaderContext, equipment: Equipment, body: unknown): (NormalizedEvent | undefined)[];
}

function location(ctx: ReaderContext, equipment: Equipment, observedAt: string | undefined, lat: unknown, lon: unknown): NormalizedEvent | undefined {
  const latitude = numberOf(lat);
  const longitude = numberOf(lon);
  if (latitude === undefined || longitude === undefined || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  return eventOf(ctx, equipment, 'location', observedAt, { latitude, longitude });
}

/** Named measurements, each with its own time and unit. */
const MEASUREMENTS_API: OemApi = {
  machines: (body) => listAt(body, 'values'),
  equipment: (m) => equipmentOf({ id: textAt(m, 'id'), oem: textAt(m, 'make'), model: textAt(m, 'model'), pin: textAt(m, 'vin') }),
  telemetry: (ctx, equipment, body) =>
    (listAt(body, 'measurements') ?? []).map((m) => {
      const observedAt = isoTime(at(m, 'time'));
      const value = numberOf(at(m, 'value'));
      const unit = textAt(m, 'unit') ?? '';
      switch (textAt(m, 'name')) {
        case 'EngineHours': {
          const hours = toHours(value, unit);
          return hours === undefined ? undefined : eventOf(ctx, equipment, 'operating_hours', observedAt, hours);
        }
        case 'FuelLevel': {
          const percent = toPercent(value, unit);
          return percent === undefined ? undefined : eventOf(ctx, equipment, 'fuel_remaining', observedAt, percent);
        }
        case 'Location':
          return location(ctx, equipment, observedAt, at(m, 'lat'), at(m, 'lon'));
        default:
          return undefined;
      }
    }),
};

/** One flat record a machine, timed in epoch seconds. */
const FLAT_API: OemApi = {
  machines: (body) => listAt(body, 'data'),
  equipment: (m) => equipmentOf({ id: textAt(m, 'id'), oem: textAt(m, 'brand'), model: textAt(m, 'model'), serial: textAt(m, 'serialNumber') }),
  telemetry: (ctx, equipment, body) => {
    const observedAt = epochTime(at(body, 'timestamp'), 's');
    const hours = toHours(numberOf(at(body, 'engineHours')), 'h');
    const fuel = toPercent(numberOf(at(body, 'fuelLevelPercent')), '%');
    return [
      hours === undefined ? undefined : eventOf(ctx, equipment, 'operating_hours', observedAt, hours),
      fuel === undefined ? undefined : eventOf(ctx, equipment, 'fuel_remaining', observedAt, fuel),
      location(ctx, equipment, observedAt, at(body, 'position', 'latitude'), at(body, 'position', 'longitude')),
    ];
  },
};

const OEM_APIS: Readonly<Record<string, OemApi>> = {
  vendor11_operations_center: MEASUREMENTS_API,
  vendor12_fieldops: FLAT_API,
};

export const oemOAuthReader: VendorReader = {
  async *snapshot(ctx) {
    const api = OEM_APIS[ctx.provider.id];
    if (api === undefined) throw new Error(`no reader mapping for ${ctx.provider.id}`);
    const headers = await dataHeaders(ctx);
    const machines = api.machines(await getJson(ctx, headers, '/api/machines'));
    if (machines === undefined) throw new VendorDocumentInvalidError(ctx.provider.id, '/api/machines', 'the answer holds no list of machines');
    const batcher = new Batcher(ctx);
    for (const machine of machines) {
      const equipment = api.equipment(machine);
      if (equipment === undefined) continue;
      const telemetry = await getJson(ctx, headers, `/api/machines/${encodeURIComponent(equipment.id)}/telemetry`);
      // One machine's telemetry is a few readings: mapped at once, after its parse's round.
      for (const event of api.telemetry(ctx, equipment, telemetry)) batcher.add(event);
      yield* batcher.fullBatches();
    }
    const rest = batcher.rest();
    if (rest !== undefined) yield rest;
  },
};
