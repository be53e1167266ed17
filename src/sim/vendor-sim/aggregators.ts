import type { RegisterRoutes } from './context.js';
import * as f from './fleet.js';
import { accountName, registerReadApi, type ReadApi } from './json-api.js';

/**
 * Fleet-telematics aggregators: an account call (what credential checks use) and a unit list with position, engine
 * hours and fuel. Field names, units and time encodings differ per vendor on purpose.
 *
 * | provider | account          | units            | hours / fuel / time                          |
 * |----------|------------------|------------------|----------------------------------------------|
 * | vendor13 | GET /v1/account  | GET /v1/units    | engine_hours h, fuel_level_pct, ISO times    |
 * | vendor14 | GET /api/me      | GET /api/vehicles| engineSeconds s, fuelLiters, epoch seconds   |
 * | vendor15 | GET /rest/whoami | GET /rest/assets | hourMeter h, fuelPercent, epoch milliseconds |
 * | vendor16 | GET /api/v2/account | GET /api/v2/units | engine_minutes, fuel_pct, ISO without Z |
 * | vendor17 | GET /account     | GET /devices     | engine_hours h, odometer_km, ISO times       |
 */

const AGGREGATOR_APIS: Readonly<Record<string, ReadApi>> = {
  vendor13: {
    '/v1/account': () => ({ account: { id: 'acc_13001', name: accountName('vendor13') } }),
    '/v1/units': (fleet, timeOf) => ({
      units: fleet.map((m) => {
        const { taken: at, stamped } = timeOf(m);
        const p = f.positionAt(m, at);
        return { unit_id: m.equipmentId, name: m.model, vin: m.pin, position: { lat: p.latitude, lng: p.longitude, recorded_at: stamped.toISOString() }, engine_hours: f.operatingHours(m, at), fuel_level_pct: f.fuelRemainingPercent(m, at) };
      }),
    }),
  },
  vendor14: {
    '/api/me': () => ({ companyName: accountName('vendor14'), userRole: 'fleet_admin' }),
    '/api/vehicles': (fleet, timeOf) => ({
      vehicles: fleet.map((m) => {
        const { taken: at, stamped } = timeOf(m);
        const p = f.positionAt(m, at);
        return {
          id: m.index + 14_000,
          label: m.equipmentId,
          gps: { latitude: p.latitude, longitude: p.longitude, timestamp: Math.floor(stamped.getTime() / 1000) },
          engineSeconds: Math.round(f.operatingHours(m, at) * 3600),
          fuelLiters: Math.round((m.tankLitres * f.fuelRemainingPercent(m, at)) / 100),
        };
      }),
    }),
  },
  vendor15: {
    '/rest/whoami': () => ({ login: 'fleet-api', customer: { name: accountName('vendor15') } }),
    '/rest/assets': (fleet, timeOf) =>
      fleet.map((m) => {
        const { taken: at, stamped } = timeOf(m);
        const p = f.positionAt(m, at);
        return { assetId: m.equipmentId, description: `${m.oemName} ${m.model}`, lastPosition: { lat: p.latitude, lon: p.longitude, time: stamped.getTime() }, hourMeter: f.operatingHours(m, at), fuelPercent: f.fuelRemainingPercent(m, at) };
      }),
  },
  vendor16: {
    '/api/v2/account': () => ({ data: { accountName: accountName('vendor16') } }),
    '/api/v2/units': (fleet, timeOf) => ({
      data: fleet.map((m) => {
        const { taken: at, stamped } = timeOf(m);
        const p = f.positionAt(m, at);
        return { uid: m.equipmentId, title: m.model, loc: { y: p.latitude, x: p.longitude, t: stamped.toISOString().slice(0, 19) }, engine_minutes: Math.round(f.operatingHours(m, at) * 60), fuel_pct: f.fuelRemainingPercent(m, at) };
      }),
    }),
  },
  vendor17: {
    '/account': () => ({ name: accountName('vendor17') }),
    '/devices': (fleet, timeOf) => ({
      devices: fleet.map((m) => {
        const { taken: at, stamped } = timeOf(m);
        const p = f.positionAt(m, at);
        return { device_id: m.equipmentId, name: m.model, latitude: p.latitude, longitude: p.longitude, fix_time: stamped.toISOString(), engine_hours: f.operatingHours(m, at), odometer_km: f.odometerKm(m, at) };
      }),
    }),
  },
};

export const registerAggregatorRoutes: RegisterRoutes = (app, provider, ctx) => {
  const api = AGGREGATOR_APIS[provider.id];
  if (api !== undefined) registerReadApi(app, provider, ctx, api);
};
