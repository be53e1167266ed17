import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromUnits, unitsFromDecimalText, wholeFromDecimalText } from '../../src/platform/core/money.js';

describe('unitsFromDecimalText', () => {
  it.each([
    ['129.99', 1_299_900],
    ['129.9999', 1_299_999],
    ['0', 0],
    ['.5', 5000],
    ['5.', 50_000],
    ['0012.50', 125_000],
    ['0.0001', 1],
    ['900719925474.0991', Number.MAX_SAFE_INTEGER],
  ])('%s -> %d units', (text, units) => {
    expect(unitsFromDecimalText(text)).toBe(units);
  });

  it.each(['', '.', '1.23456', '-1', '+1', '1e2', '1E2', ' 1', '1 ', '0x10', '1,5', 'NaN', 'Infinity', '1..2', '١', '900719925474.0992'])(
    'refuses %j',
    (text) => {
      expect(unitsFromDecimalText(text)).toBeUndefined();
    },
  );

  it('reads every 4-decimal text back to the amount fromUnits shows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (units) => {
        const text = `${Math.floor(units / 10_000)}.${String(units % 10_000).padStart(4, '0')}`;
        expect(unitsFromDecimalText(text)).toBe(units);
        if (units <= 10_000_000_000) expect(unitsFromDecimalText(String(fromUnits(units)))).toBe(units);
      }),
    );
  });
});

describe('wholeFromDecimalText', () => {
  it.each([
    ['12', 12],
    ['12.', 12],
    ['12.00', 12],
    ['007', 7],
    ['0', 0],
  ])('%s -> %d', (text, whole) => {
    expect(wholeFromDecimalText(text)).toBe(whole);
  });

  it.each(['1.5', '0.0001', '1e3', '', '-1', '1.00000'])('refuses %j', (text) => {
    expect(wholeFromDecimalText(text)).toBeUndefined();
  });
});
