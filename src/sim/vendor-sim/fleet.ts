/** Deterministic machines and their readings: the same provider and fleet size give the same fleet on every run. */

export interface Machine {
  index: number;
  pin: string;
  serialNumber: string;
  equipmentId: string;
  oemName: string;
  model: string;
  /** Home site; positions wander a little around it. */
  latitude: number;
  longitude: number;
  /** Hours on the meter at EPOCH, and the share of wall-clock time the engine runs. */
  baseHours: number;
  utilisation: number;
  idleShare: number;
  /** Litres burnt per operating hour. */
  burnRate: number;
  tankLitres: number;
}

/** Readings are functions of time from this instant, so any window of a time series is reproducible. */
const EPOCH = Date.UTC(2024, 0, 1);
const HOUR_MS = 3_600_000;

const MAKES: readonly { oem: string; code: string; models: readonly string[] }[] = [
  { oem: 'Vendorworks', code: 'VWK', models: ['EX210-7', 'WL150', 'DZ85'] },
  { oem: 'Heavyline', code: 'HVL', models: ['HL320D', 'HL966M', 'HL140'] },
  { oem: 'Terramach', code: 'TRM', models: ['TB290-2', 'TL12V2', 'TC50'] },
];

/** FNV-1a: a stable 32-bit hash of a string, the seed of everything here. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: small, seedable, good enough for plausible fleets. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rnd: () => number, list: readonly T[]): T {
  const item = list[Math.floor(rnd() * list.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

const round = (value: number, decimals = 2): number => Number(value.toFixed(decimals));

export function fleetOf(provider: string, size: number): Machine[] {
  return Array.from({ length: size }, (_, index) => {
    const rnd = random(hash32(`${provider}#${index}`));
    const make = pick(rnd, MAKES);
    const model = pick(rnd, make.models);
    const serial = String(100_000_000 + Math.floor(rnd() * 899_999_999));
    return {
      index,
      pin: `${make.code}${model.replace(/[^A-Z0-9]/gi, '').toUpperCase()}${serial}`.slice(0, 17),
      serialNumber: serial,
      equipmentId: `${provider.split('_')[0] ?? provider}-${String(index + 1).padStart(4, '0')}`,
      oemName: make.oem,
      model,
      latitude: round(40 + rnd() * 12, 6),
      longitude: round(-5 + rnd() * 20, 6),
      baseHours: round(200 + rnd() * 8000, 1),
      utilisation: round(0.15 + rnd() * 0.35, 3),
      idleShare: round(0.1 + rnd() * 0.2, 3),
      burnRate: round(6 + rnd() * 18, 1),
      tankLitres: pick(rnd, [150, 250, 400]),
    };
  });
}

const hoursSinceEpoch = (at: Date): number => Math.max(0, (at.getTime() - EPOCH) / HOUR_MS);

export const operatingHours = (m: Machine, at: Date): number => round(m.baseHours + hoursSinceEpoch(at) * m.utilisation);
export const idleHours = (m: Machine, at: Date): number => round(operatingHours(m, at) * m.idleShare);
export const fuelUsedLitres = (m: Machine, at: Date): number => round(operatingHours(m, at) * m.burnRate, 1);
/** The tank drains over a day and is refilled at midnight UTC. */
export const fuelRemainingPercent = (m: Machine, at: Date): number => round(95 - ((at.getUTCHours() * 60 + at.getUTCMinutes()) / 1440) * 70 * m.utilisation * 2, 1);
export const defRemainingPercent = (m: Machine, at: Date): number => round(Math.max(5, fuelRemainingPercent(m, at) - 10), 1);
export const odometerKm = (m: Machine, at: Date): number => round(operatingHours(m, at) * 4.5, 1);
export const engineRunning = (m: Machine, at: Date): boolean => (hash32(`${m.pin}@${at.getTime()}`) % 1000) / 1000 < m.utilisation;

/** The ISO 15143-3:2016 elements beyond the usual ones, for feeds that send them. */
export const altitudeMetres = (m: Machine): number => 100 + (hash32(`${m.pin}^`) % 900);
export const ptoHours = (m: Machine, at: Date): number => round(operatingHours(m, at) * 0.05);
export const idleNonOperatingHours = (m: Machine, at: Date): number => round(idleHours(m, at) * 0.3);
export const fuelUsedLast24Litres = (m: Machine): number => round(m.burnRate * 24 * m.utilisation, 1);
export const defTankLitres = (m: Machine): number => m.tankLitres / 10;
export const loadCount = (m: Machine, at: Date): number => Math.floor(operatingHours(m, at) * 3);
export const payloadTonnes = (m: Machine, at: Date): number => round(loadCount(m, at) * 12.5, 1);

export function positionAt(m: Machine, at: Date): { latitude: number; longitude: number } {
  const drift = (hash32(`${m.pin}~${Math.floor(at.getTime() / HOUR_MS)}`) % 2000) / 1_000_000;
  return { latitude: round(m.latitude + drift, 6), longitude: round(m.longitude - drift, 6) };
}

const FAULTS = [
  { id: '1569-31', description: 'Engine derate active', severity: 'high' },
  { id: '100-1', description: 'Engine oil pressure low', severity: 'high' },
  { id: '3364-18', description: 'DEF quality low', severity: 'medium' },
  { id: '168-17', description: 'Battery voltage low', severity: 'low' },
] as const;

/** One reading in five carries a fault, which one decided by the machine and the time. */
export function faultAt(m: Machine, at: Date): (typeof FAULTS)[number] | undefined {
  const h = hash32(`${m.pin}!${at.getTime()}`);
  return h % 5 === 0 ? FAULTS[h % FAULTS.length] : undefined;
}
