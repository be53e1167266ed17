import type { RegisterRoutes } from './context.js';
import { hash32, type Machine } from './fleet.js';
import { accountName, registerReadApi, type ReadApi } from './json-api.js';

/**
 * Tire-pressure monitoring: account, vehicles with per-wheel pressure and temperature, and alerts.
 *
 * | provider          | account          | vehicles / alerts                   | units           | positions        |
 * |-------------------|------------------|-------------------------------------|-----------------|------------------|
 * | vendor18_tyresense| GET /api/account | GET /api/vehicles, GET /api/alerts  | bar, °C         | 1L 1R 2LO 2LI .. |
 * | vendor19_connect  | GET /v1/me       | GET /v1/vehicles, GET /v1/alerts    | psi (kPa in alerts), °F | FL FR RLO RLI .. |
 */

const AXLE_POSITIONS = ['1L', '1R', '2LO', '2LI', '2RI', '2RO'] as const;
const CORNER_POSITIONS = ['FL', 'FR', 'RLO', 'RLI', 'RRI', 'RRO'] as const;
const NOMINAL_KPA = 850;
const LOW_KPA = 720;

interface Tire {
  index: number;
  kpa: number;
  celsius: number;
}

/** Every fourth vehicle has one under-inflated, warmer tire; the rest sit near nominal. */
function tiresOf(m: Machine, at: Date): Tire[] {
  const day = Math.floor(at.getTime() / 86_400_000);
  return AXLE_POSITIONS.map((_, index) => {
    const h = hash32(`${m.pin}/${index}/${day}`);
    const low = m.index % 4 === 0 && index === m.index % AXLE_POSITIONS.length;
    return { index, kpa: low ? 680 + (h % 30) : NOMINAL_KPA - 20 + (h % 40), celsius: (low ? 55 : 35) + (h % 10) };
  });
}

const round1 = (n: number): number => Math.round(n * 10) / 10;
const toBar = (kpa: number): number => Math.round(kpa) / 100;
const toPsi = (kpa: number): number => round1(kpa * 0.1450377);
const toFahrenheit = (c: number): number => round1((c * 9) / 5 + 32);
const lowTires = (m: Machine, at: Date): Tire[] => tiresOf(m, at).filter((t) => t.kpa < LOW_KPA);
const plate = (m: Machine): string => `SIM-${String(m.index + 1).padStart(3, '0')}`;

const TPMS_APIS: Readonly<Record<string, ReadApi>> = {
  vendor18_tyresense: {
    '/api/account': () => ({ account_name: accountName('vendor18_tyresense'), units: { pressure: 'bar', temperature: 'C' } }),
    '/api/vehicles': (fleet, timeOf) => ({
      vehicles: fleet.map((m) => {
        const { taken, stamped } = timeOf(m);
        return {
          vehicle_id: m.equipmentId,
          registration: plate(m),
          tyres: tiresOf(m, taken).map((t) => ({ position: AXLE_POSITIONS[t.index], pressure_bar: toBar(t.kpa), temperature_c: t.celsius, recorded_at: stamped.toISOString() })),
        };
      }),
    }),
    '/api/alerts': (fleet, timeOf) => ({
      alerts: fleet.flatMap((m) => {
        const { taken, stamped } = timeOf(m);
        return lowTires(m, taken).map((t) => ({ vehicle_id: m.equipmentId, position: AXLE_POSITIONS[t.index], type: 'low_pressure', severity: 'warning', pressure_bar: toBar(t.kpa), raised_at: stamped.toISOString() }));
      }),
    }),
  },
  vendor19_connect: {
    '/v1/me': () => ({ fleet: { id: 'flt_19', name: accountName('vendor19_connect') } }),
    '/v1/vehicles': (fleet, timeOf) =>
      fleet.map((m) => {
        const { taken, stamped } = timeOf(m);
        return {
          vehicleId: m.equipmentId,
          plate: plate(m),
          wheels: tiresOf(m, taken).map((t) => ({ wheelPosition: CORNER_POSITIONS[t.index], pressurePsi: toPsi(t.kpa), tempF: toFahrenheit(t.celsius), measuredAt: stamped.toISOString() })),
        };
      }),
    '/v1/alerts': (fleet, timeOf) => ({
      items: fleet.flatMap((m) => {
        const { taken, stamped } = timeOf(m);
        return lowTires(m, taken).map((t) => ({ vehicleId: m.equipmentId, wheelPosition: CORNER_POSITIONS[t.index], code: 'PRESSURE_LOW', pressureKpa: t.kpa, at: stamped.toISOString() }));
      }),
    }),
  },
};

export const registerTpmsRoutes: RegisterRoutes = (app, provider, ctx) => {
  const api = TPMS_APIS[provider.id];
  if (api !== undefined) registerReadApi(app, provider, ctx, api);
};
