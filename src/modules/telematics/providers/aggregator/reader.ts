import type { Equipment, EventData, EventType, NormalizedEvent } from '../event.js';
import { at, listAt, textAt } from '../json.js';
import { jsonFeedReader, type JsonFeed } from '../json-feed.js';
import { epochTime, isoTime, numberOf, toHours, toKm, toLitres, toPercent } from '../normalize.js';
import { equipmentOf, eventOf, type ReaderContext } from '../reader.js';

/**
 * Fleet-telematics aggregators: one unit list each, with position, engine hours and fuel or odometer. Their readings
 * carry one time (the position fix), which dates every value of the unit.
 */

interface Reading {
  equipment: Equipment | undefined;
  observedAt: string | undefined;
  latitude?: unknown;
  longitude?: unknown;
  hours?: ReturnType<typeof toHours>;
  fuelRemaining?: ReturnType<typeof toPercent> | ReturnType<typeof toLitres>;
  distance?: ReturnType<typeof toKm>;
}

function eventsOf(ctx: ReaderContext, reading: Reading): (NormalizedEvent | undefined)[] {
  const { equipment } = reading;
  if (equipment === undefined) return [];
  const ev = <T extends EventType>(type: T, data: EventData<T> | undefined): NormalizedEvent | undefined => (data === undefined ? undefined : eventOf(ctx, equipment, type, reading.observedAt, data));
  const latitude = numberOf(reading.latitude);
  const longitude = numberOf(reading.longitude);
  const located = latitude !== undefined && longitude !== undefined && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
  return [
    ev('location', located ? { latitude, longitude } : undefined),
    ev('operating_hours', reading.hours),
    ev('fuel_remaining', reading.fuelRemaining),
    ev('distance', reading.distance),
  ];
}

const feed = (path: string, items: (body: unknown) => unknown[] | undefined, read: (item: unknown) => Reading): JsonFeed => ({
  path,
  items,
  events: (ctx, item) => eventsOf(ctx, read(item)),
});

const AGGREGATOR_FEEDS: Readonly<Record<string, readonly JsonFeed[]>> = {
  vendor13: [
    feed('/v1/units', (b) => listAt(b, 'units'), (u) => ({
      equipment: equipmentOf({ id: textAt(u, 'unit_id'), pin: textAt(u, 'vin') }),
      observedAt: isoTime(at(u, 'position', 'recorded_at')),
      latitude: at(u, 'position', 'lat'),
      longitude: at(u, 'position', 'lng'),
      hours: toHours(numberOf(at(u, 'engine_hours')), 'h'),
      fuelRemaining: toPercent(numberOf(at(u, 'fuel_level_pct')), '%'),
    })),
  ],
  vendor14: [
    feed('/api/vehicles', (b) => listAt(b, 'vehicles'), (v) => ({
      equipment: equipmentOf({ id: textAt(v, 'id') }),
      observedAt: epochTime(at(v, 'gps', 'timestamp'), 's'),
      latitude: at(v, 'gps', 'latitude'),
      longitude: at(v, 'gps', 'longitude'),
      hours: toHours(numberOf(at(v, 'engineSeconds')), 's'),
      // Litres only: the tank size is not given, so no percentage.
      fuelRemaining: toLitres(numberOf(at(v, 'fuelLiters')), 'L'),
    })),
  ],
  vendor15: [
    feed('/rest/assets', (b) => (Array.isArray(b) ? b : undefined), (a) => ({
      equipment: equipmentOf({ id: textAt(a, 'assetId') }),
      observedAt: epochTime(at(a, 'lastPosition', 'time'), 'ms'),
      latitude: at(a, 'lastPosition', 'lat'),
      longitude: at(a, 'lastPosition', 'lon'),
      hours: toHours(numberOf(at(a, 'hourMeter')), 'h'),
      fuelRemaining: toPercent(numberOf(at(a, 'fuelPercent')), '%'),
    })),
  ],
  vendor16: [
    feed('/api/v2/units', (b) => listAt(b, 'data'), (u) => ({
      equipment: equipmentOf({ id: textAt(u, 'uid') }),
      observedAt: isoTime(at(u, 'loc', 't')),
      latitude: at(u, 'loc', 'y'),
      longitude: at(u, 'loc', 'x'),
      hours: toHours(numberOf(at(u, 'engine_minutes')), 'min'),
      fuelRemaining: toPercent(numberOf(at(u, 'fuel_pct')), '%'),
    })),
  ],
  vendor17: [
    feed('/devices', (b) => listAt(b, 'devices'), (device) => ({
      equipment: equipmentOf({ id: textAt(device, 'device_id') }),
      observedAt: isoTime(at(device, 'fix_time')),
      latitude: at(device, 'latitude'),
      longitude: at(device, 'longitude'),
      hours: toHours(numberOf(at(device, 'engine_hours')), 'h'),
      distance: toKm(numberOf(at(device, 'odometer_km')), 'km'),
    })),
  ],
};

export const aggregatorReader = jsonFeedReader(AGGREGATOR_FEEDS);
