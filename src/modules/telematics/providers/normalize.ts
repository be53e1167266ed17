/** Vendor values to the units and times events carry: numbers, ISO 8601 UTC times, unit conversions. */

const TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** Years before this are placeholders (`0001-01-01T00:00:00` means "unknown" in ISO 15143-3 feeds), never readings. */
const FIRST_PLAUSIBLE_YEAR = 1970;

/**
 * An ISO 8601 time as `YYYY-MM-DDTHH:mm:ss.sssZ`: no zone is read as UTC, offsets are applied, fractional seconds are
 * cut (not rounded) to milliseconds. Undefined for anything else, and for placeholders.
 */
export function isoTime(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = TIME.exec(raw.trim());
  if (m === null) return undefined;
  const [, yearText, month, day, hour, minute, second = '0', fraction = '0', zone = 'Z'] = m;
  const year = Number(yearText);
  if (year < FIRST_PLAUSIBLE_YEAR) return undefined;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const local = Date.UTC(year, Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), ms);
  const check = new Date(local);
  // Date.UTC rolls 2026-02-30 over to March: a field out of range is a bad time, not another one.
  if (check.getUTCMonth() !== Number(month) - 1 || check.getUTCDate() !== Number(day) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    offsetMinutes = (digits.startsWith('-') ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  return new Date(local - offsetMinutes * 60_000).toISOString();
}

/** Unix time in seconds or milliseconds as an ISO time; undefined for non-numbers and times before 1970. */
export function epochTime(raw: unknown, unit: 's' | 'ms'): string | undefined {
  const n = numberOf(raw);
  if (n === undefined || n <= 0) return undefined;
  const ms = unit === 's' ? n * 1000 : n;
  return Number.isFinite(ms) && ms < 8.64e15 ? new Date(Math.trunc(ms)).toISOString() : undefined;
}

/** A finite number from a JSON number or a numeric string (XML text). */
export function numberOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  return Number.isFinite(n) ? n : undefined;
}

export function booleanOf(raw: unknown): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim().toLowerCase();
  if (text === 'true' || text === '1' || text === 'on') return true;
  if (text === 'false' || text === '0' || text === 'off') return false;
  return undefined;
}

const round = (value: number, decimals: number): number => Number(value.toFixed(decimals));

/** A normalized value and what the vendor sent. */
interface Converted<U extends string> {
  value: number;
  unit: U;
  source: { value: number; unit: string };
}

type Table = Readonly<Record<string, (v: number) => number>>;

function converter<U extends string>(unit: U, decimals: number, table: Table) {
  return (value: number | undefined, sourceUnit: string): Converted<U> | undefined => {
    const convert = table[sourceUnit.trim().toLowerCase()];
    if (value === undefined || convert === undefined) return undefined;
    return { value: round(convert(value), decimals), unit, source: { value, unit: sourceUnit } };
  };
}

const same = (v: number): number => v;

export const toKpa = converter('kPa', 1, { kpa: same, bar: (v) => v * 100, psi: (v) => v * 6.894757293168361 });
export const toCelsius = converter('°C', 1, { c: same, '°c': same, celsius: same, f: (v) => ((v - 32) * 5) / 9, '°f': (v) => ((v - 32) * 5) / 9, fahrenheit: (v) => ((v - 32) * 5) / 9 });
const MILE_KM = 1.609344;
export const toKm = converter('km', 1, { km: same, kilometre: same, kilometer: same, kilometres: same, kilometers: same, mi: (v) => v * MILE_KM, mile: (v) => v * MILE_KM, miles: (v) => v * MILE_KM });
const GALLON_L = 3.785411784;
export const toLitres = converter('L', 1, { l: same, litre: same, liter: same, litres: same, liters: same, gal: (v) => v * GALLON_L, gallon: (v) => v * GALLON_L, gallons: (v) => v * GALLON_L });
export const toHours = converter('h', 2, { h: same, hour: same, hours: same, min: (v) => v / 60, minutes: (v) => v / 60, s: (v) => v / 3600, seconds: (v) => v / 3600 });
export const toPercent = converter('%', 1, { '%': same, percent: same });
const FOOT_M = 0.3048;
export const toMetres = converter('m', 1, { m: same, metre: same, meter: same, metres: same, meters: same, ft: (v) => v * FOOT_M, foot: (v) => v * FOOT_M, feet: (v) => v * FOOT_M });
const POUND_T = 0.00045359237;
const SHORT_TON_T = 0.90718474;
export const toTonnes = converter('t', 3, {
  t: same,
  tonne: same,
  tonnes: same,
  'metric tonne': same,
  'metric tonnes': same,
  'metric ton': same,
  'metric tons': same,
  kg: (v) => v / 1000,
  kilogram: (v) => v / 1000,
  kilograms: (v) => v / 1000,
  lb: (v) => v * POUND_T,
  lbs: (v) => v * POUND_T,
  pound: (v) => v * POUND_T,
  pounds: (v) => v * POUND_T,
  'short ton': (v) => v * SHORT_TON_T,
  'short tons': (v) => v * SHORT_TON_T,
});
