/**
 * Money is integer units of 1/10000 (prices carry up to 4 decimals); arithmetic on totals runs in
 * BigInt, so nothing passes through a binary fraction.
 */
const UNITS_PER_WHOLE = 10_000;
const UNITS_PER_CENT = 100n;

/** A non-negative amount with at most 4 decimals -> units; undefined when it has more decimals or is out of range. */
export function toUnits(amount: number): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  const units = Math.round(amount * UNITS_PER_WHOLE);
  // Dividing the exact integer back gives the double nearest that decimal: equal only if the input had <= 4 decimals.
  if (!Number.isSafeInteger(units) || units / UNITS_PER_WHOLE !== amount) return undefined;
  return units;
}

/** Digits with an optional point and at most 4 decimals: X12 R forms ('129.99', '.5', '5.', '0012.50'); no sign or exponent. */
const DECIMAL_TEXT = /^(?=\.?\d)(\d*)(?:\.(\d{0,4}))?$/;

/** Decimal text -> units, digit by digit so no binary fraction is involved; undefined when not that form or past a safe integer. */
export function unitsFromDecimalText(text: string): number | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) return undefined;
  const units = BigInt(`${match[1] ?? ''}${(match[2] ?? '').padEnd(4, '0')}`);
  return units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : undefined;
}

/** Decimal text that holds a whole number ('12', '12.', '12.00') -> that number: counts read with the same grammar as prices. */
export function wholeFromDecimalText(text: string): number | undefined {
  const units = unitsFromDecimalText(text);
  return units !== undefined && units % UNITS_PER_WHOLE === 0 ? units / UNITS_PER_WHOLE : undefined;
}

/** Units -> the JSON number whose shortest decimal form is the exact amount (19.9999, 0.1). */
export function fromUnits(units: number): number {
  return units / UNITS_PER_WHOLE;
}

/** Rounds units to whole cents, halves away from zero. */
function roundToCents(units: bigint): bigint {
  const half = UNITS_PER_CENT / 2n;
  const shifted = units >= 0n ? units + half : units - half;
  return (shifted / UNITS_PER_CENT) * UNITS_PER_CENT;
}

/** quantity x unit price, rounded to cents, in units. */
export function lineTotalUnits(quantity: number, unitPriceUnits: number): bigint {
  return roundToCents(BigInt(quantity) * BigInt(unitPriceUnits));
}
