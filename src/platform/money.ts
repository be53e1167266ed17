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

/** Units -> the JSON number whose shortest decimal form is the exact amount (19.9999, 0.1). */
export function fromUnits(units: number): number {
  return units / UNITS_PER_WHOLE;
}

/** Rounds units to whole cents, halves away from zero. */
export function roundToCents(units: bigint): bigint {
  const half = UNITS_PER_CENT / 2n;
  const shifted = units >= 0n ? units + half : units - half;
  return (shifted / UNITS_PER_CENT) * UNITS_PER_CENT;
}

/** quantity x unit price, rounded to cents, in units. */
export function lineTotalUnits(quantity: number, unitPriceUnits: number): bigint {
  return roundToCents(BigInt(quantity) * BigInt(unitPriceUnits));
}
