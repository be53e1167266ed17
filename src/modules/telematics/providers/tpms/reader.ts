import type { Equipment, NormalizedEvent } from '../event.js';
import { at, listAt, textAt } from '../json.js';
import { jsonFeedReader, type JsonFeed } from '../json-feed.js';
import { isoTime, numberOf, toCelsius, toKpa } from '../normalize.js';
import { equipmentOf, eventOf, type ReaderContext } from '../reader.js';

/**
 * Tire-pressure monitoring: per-wheel pressure and temperature, and alerts. Wheel positions are kept as the vendor
 * names them (`2LO`, `RLO`): the schemes do not map one to one without the vehicle's axle layout.
 */

interface Wheel {
  position: string | undefined;
  observedAt: string | undefined;
  pressure: ReturnType<typeof toKpa>;
  temperature: ReturnType<typeof toCelsius>;
}

function vehicleEvents(ctx: ReaderContext, equipment: Equipment | undefined, wheels: Wheel[]): (NormalizedEvent | undefined)[] {
  if (equipment === undefined) return [];
  return wheels.flatMap(({ position, observedAt, pressure, temperature }) =>
    position === undefined
      ? []
      : [
          pressure === undefined ? undefined : eventOf(ctx, equipment, 'tire_pressure', observedAt, { ...pressure, position }),
          temperature === undefined ? undefined : eventOf(ctx, equipment, 'tire_temperature', observedAt, { ...temperature, position }),
        ],
  );
}

interface Alert {
  vehicleId: string | undefined;
  position: string | undefined;
  code: string | undefined;
  severity: string | undefined;
  pressure: ReturnType<typeof toKpa>;
  observedAt: string | undefined;
}

function alertEvents(ctx: ReaderContext, a: Alert): (NormalizedEvent | undefined)[] {
  const equipment = equipmentOf({ id: a.vehicleId });
  if (equipment === undefined || a.position === undefined || a.code === undefined) return [];
  const data = { position: a.position, code: a.code, ...(a.severity === undefined ? {} : { severity: a.severity }), ...(a.pressure === undefined ? {} : { pressure: a.pressure }) };
  return [eventOf(ctx, equipment, 'tpms_alert', a.observedAt, data)];
}

const items = (body: unknown): unknown[] | undefined => (Array.isArray(body) ? body : undefined);

const TPMS_FEEDS: Readonly<Record<string, readonly JsonFeed[]>> = {
  vendor18_tyresense: [
    {
      path: '/api/vehicles',
      items: (b) => listAt(b, 'vehicles'),
      events: (ctx, v) =>
        vehicleEvents(
          ctx,
          equipmentOf({ id: textAt(v, 'vehicle_id') }),
          (listAt(v, 'tyres') ?? []).map((t) => ({
            position: textAt(t, 'position'),
            observedAt: isoTime(at(t, 'recorded_at')),
            pressure: toKpa(numberOf(at(t, 'pressure_bar')), 'bar'),
            temperature: toCelsius(numberOf(at(t, 'temperature_c')), '°C'),
          })),
        ),
    },
    {
      path: '/api/alerts',
      items: (b) => listAt(b, 'alerts'),
      events: (ctx, a) =>
        alertEvents(ctx, {
          vehicleId: textAt(a, 'vehicle_id'),
          position: textAt(a, 'position'),
          code: textAt(a, 'type'),
          severity: textAt(a, 'severity'),
          pressure: toKpa(numberOf(at(a, 'pressure_bar')), 'bar'),
          observedAt: isoTime(at(a, 'raised_at')),
        }),
    },
  ],
  vendor19_connect: [
    {
      path: '/v1/vehicles',
      items,
      events: (ctx, v) =>
        vehicleEvents(
          ctx,
          equipmentOf({ id: textAt(v, 'vehicleId') }),
          (listAt(v, 'wheels') ?? []).map((w) => ({
            position: textAt(w, 'wheelPosition'),
            observedAt: isoTime(at(w, 'measuredAt')),
            pressure: toKpa(numberOf(at(w, 'pressurePsi')), 'psi'),
            temperature: toCelsius(numberOf(at(w, 'tempF')), '°F'),
          })),
        ),
    },
    {
      path: '/v1/alerts',
      items: (b) => listAt(b, 'items'),
      events: (ctx, a) =>
        alertEvents(ctx, {
          vehicleId: textAt(a, 'vehicleId'),
          position: textAt(a, 'wheelPosition'),
          code: textAt(a, 'code'),
          severity: undefined,
          pressure: toKpa(numberOf(at(a, 'pressureKpa')), 'kPa'),
          observedAt: isoTime(at(a, 'at')),
        }),
    },
  ],
};

export const tpmsReader = jsonFeedReader(TPMS_FEEDS);
