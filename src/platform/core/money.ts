import { z } from 'zod';

/**
 * Money is integer units of 1/10000 (prices carry up to 4 decimals); arithmetic on totals runs in
 * BigInt, so nothing passes through a binary fraction.
 */
const UNITS_PER_WHOLE = 10_000;
/** Digits after the point that storage holds: unit prices carry up to 4. */
export const UNIT_DECIMALS = 4;

/** Digits with an optional point and at most 4 decimals: X12 R forms ('129.99', '.5', '5.', '0012.50'); no sign or exponent. */
const DECIMAL_TEXT = /^(?=\.?\d)(\d*)(?:\.(\d{0,4}))?$/;

/** Decimal text -> units, digit by digit so no binary fraction is involved; undefined when not that form or past a safe integer. */
export function unitsFromDecimalText(text: string): number | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return undefined;
  const digits = `${match[1] ?? ''}${(match[2] ?? '').padEnd(4, '0')}`;
  // 15 digits or fewer are below 2^53, so a double reads them exactly (an order's prices, every time).
  if (digits.length <= 15) return Number(digits);
  const units = BigInt(digits);
  return units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : undefined;
}

/** Decimal text that holds a whole number ('12', '12.', '12.00') -> that number: counts read with the same grammar as prices. */
export function wholeFromDecimalText(text: string): number | undefined {
  const units = unitsFromDecimalText(text);
  return units !== undefined && units % UNITS_PER_WHOLE === 0 ? units / UNITS_PER_WHOLE : undefined;
}

/** Rounds units to whole steps of 10^(4 - decimals) units (to the currency's minor unit), halves away from zero. */
export function roundUnits(units: bigint, decimals: number): bigint {
  const step = 10n ** BigInt(UNIT_DECIMALS - decimals);
  const half = step / 2n;
  const shifted = units >= 0n ? units + half : units - half;
  return (shifted / step) * step;
}

/** quantity x unit price, rounded to the currency's minor unit (`decimals`), in units. */
export function lineTotalUnits(quantity: number, unitPriceUnits: number, decimals: number): bigint {
  return roundUnits(BigInt(quantity) * BigInt(unitPriceUnits), decimals);
}

/**
 * Units -> the wire's decimal string with exactly `decimals` digits after the point (`"129.9900"` at 4, `"519.96"` at 2,
 * `"520"` at 0): integer division and padding, never a float. Throws when the amount has more digits than shown.
 */
export function formatUnits(units: number | bigint, decimals: number): string {
  if (typeof units === 'number' && Number.isSafeInteger(units)) return formatSafeUnits(units, decimals);
  const value = BigInt(units);
  const step = 10n ** BigInt(UNIT_DECIMALS - decimals);
  if (value % step !== 0n) throw new Error(`${value} units do not fit ${decimals} decimals`);
  const abs = (value < 0n ? -value : value) / step;
  const scale = 10n ** BigInt(decimals);
  const whole = `${value < 0n ? '-' : ''}${abs / scale}`;
  return decimals === 0 ? whole : `${whole}.${(abs % scale).toString().padStart(decimals, '0')}`;
}

/** formatUnits for a safe integer, in doubles: every step below is an exact integer operation under 2^53. */
function formatSafeUnits(units: number, decimals: number): string {
  const step = 10 ** (UNIT_DECIMALS - decimals);
  if (units % step !== 0) throw new Error(`${units} units do not fit ${decimals} decimals`);
  const abs = Math.abs(units) / step;
  const scale = 10 ** decimals;
  const fraction = abs % scale;
  const whole = `${units < 0 ? '-' : ''}${(abs - fraction) / scale}`;
  return decimals === 0 ? whole : `${whole}.${String(fraction).padStart(decimals, '0')}`;
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a JSON array' : `a JSON ${typeof value}`;
}

/** Plain decimal text as JSON money takes it: digits, then optionally a point and digits; no sign, exponent or spaces. */
const MONEY_TEXT = /^\d+(?:\.\d+)?$/;

/**
 * A money input: a decimal string (`"129.99"`) with at most `decimals` digits after the point, 0 (or above 0 when
 * `positive`) up to `max`. A JSON number is refused with a message saying what to send: money never crosses the wire
 * as a binary float. The value stays text; unitsFromDecimalText reads it into units digit by digit.
 */
export function moneyText(what: string, opts: { decimals: number; max: number; positive?: boolean }) {
  const example = opts.decimals === 0 ? '"1500"' : `"129.${'99'.slice(0, opts.decimals)}"`;
  // The pattern says the decimals too, so OpenAPI and MCP clients see the rule this schema enforces.
  const pattern = new RegExp(opts.decimals === 0 ? '^\\d+$' : `^\\d+(?:\\.\\d{1,${opts.decimals}})?$`);
  const maxUnits = BigInt(opts.max) * BigInt(UNITS_PER_WHOLE);
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${what} is required` : `${what} must be a decimal string such as ${example}, not ${jsonKind(issue.input)}`,
    })
    .regex(pattern, {
      error: (issue) => {
        const text = String(issue.input);
        if (/^-\d/.test(text)) return `${what} must not be negative`;
        if (MONEY_TEXT.test(text)) return opts.decimals === 0 ? `${what} is a whole amount in this currency: no decimals` : `${what} has at most ${opts.decimals} decimals`;
        return `${what} must be a decimal string: digits with an optional point (e.g. ${example}), no sign, exponent or spaces`;
      },
    })
    .refine((text) => !pattern.test(text) || BigInt(unitsFromDecimalText(text) ?? Number.MAX_SAFE_INTEGER) <= maxUnits, { error: `${what} must be at most ${opts.max}` })
    .refine((text) => !pattern.test(text) || !opts.positive || unitsFromDecimalText(text) !== 0, { error: `${what} must be more than 0` });
}
