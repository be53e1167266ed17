import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorDigitsOf } from '../../src/platform/core/currencies.js';
import { formatUnits, lineTotalUnits, moneyText, unitsFromDecimalText, wholeFromDecimalText } from '../../src/platform/core/money.js';

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

  it('reads any digits as their exact amount, short ones in doubles, long ones (leading zeros too) in BigInt', () => {
    const digits = (max: number) => fc.array(fc.constantFrom(...'0123456789'), { maxLength: max }).map((d) => d.join(''));
    fc.assert(
      fc.property(digits(20), digits(4), fc.boolean(), (whole, fraction, point) => {
        fc.pre(whole.length + fraction.length > 0 && (point || fraction.length === 0));
        const text = point ? `${whole}.${fraction}` : whole;
        const exact = BigInt(`${whole}${fraction.padEnd(4, '0')}`);
        expect(unitsFromDecimalText(text)).toBe(exact <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(exact) : undefined);
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads every 4-decimal text back to the amount formatUnits shows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (units) => {
        const text = `${Math.floor(units / 10_000)}.${String(units % 10_000).padStart(4, '0')}`;
        expect(unitsFromDecimalText(text)).toBe(units);
        expect(formatUnits(units, 4)).toBe(text);
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

describe('formatUnits', () => {
  it.each([
    [1_299_900, 4, '129.9900'],
    [1, 4, '0.0001'],
    [0, 4, '0.0000'],
    [5_199_600, 2, '519.96'],
    [5_000, 2, '0.50'],
    [5_200_000, 0, '520'],
    [123_450, 3, '12.345'],
    [-5_000, 2, '-0.50'],
  ])('%d units at %d decimals -> %s', (units, decimals, text) => {
    expect(formatUnits(units, decimals)).toBe(text);
  });

  it('refuses to drop digits an amount has', () => {
    expect(() => formatUnits(5_199_650, 2)).toThrow('do not fit 2 decimals');
    expect(() => formatUnits(5_199_650n, 2)).toThrow('do not fit 2 decimals');
  });

  it('shows a safe integer (done in doubles) exactly as the same amount in BigInt', () => {
    fc.assert(
      fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 4 }), (raw, decimals) => {
        const step = 10 ** (4 - decimals);
        const units = raw - (raw % step);
        expect(formatUnits(units, decimals)).toBe(formatUnits(BigInt(units), decimals));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('lineTotalUnits', () => {
  it.each([
    // quantity, unit price text, currency digits, total text at those digits
    [3, '19.9999', 2, '60.00'],
    [1, '0.005', 2, '0.01'],
    [1, '0.0049', 2, '0.00'],
    [3, '0.5', 0, '2'],
    [1, '1500.4999', 0, '1500'],
    [7, '1.2345', 3, '8.642'],
    [1, '0.0005', 3, '0.001'],
    [3, '0.3333', 4, '0.9999'],
  ])('%d x %s at %d decimals = %s (halves away from zero)', (quantity, price, digits, total) => {
    const units = unitsFromDecimalText(price) ?? -1;
    expect(formatUnits(lineTotalUnits(quantity, units, digits), digits)).toBe(total);
  });
});

describe('minorDigitsOf', () => {
  it.each([
    ['USD', 2],
    ['EUR', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['KWD', 3],
    ['BHD', 3],
    ['CLF', 4],
    ['IQD', 3],
  ])('%s has %d', (code, digits) => {
    expect(minorDigitsOf(code)).toBe(digits);
  });

  it.each(['usd', 'XXX', 'XAU', 'HRK', 'ABC', ''])('does not know %j', (code) => {
    expect(minorDigitsOf(code)).toBeUndefined();
  });
});

describe('moneyText', () => {
  const price = moneyText('unit_price', { decimals: 4, max: 1_000_000 });
  const charge = moneyText('amount', { decimals: 4, max: 1_000_000, positive: true });
  const message = (schema: typeof price, input: unknown) => {
    const parsed = schema.safeParse(input);
    return parsed.success ? undefined : parsed.error.issues.map((i) => i.message).join('; ');
  };

  it.each(['0', '129.99', '0.0001', '1000000', '1000000.0000', '007.5'])('takes %j', (text) => {
    expect(price.safeParse(text).success).toBe(true);
  });

  it.each([
    [129.99, 'unit_price must be a decimal string such as "129.99", not a JSON number'],
    [1, 'unit_price must be a decimal string such as "129.99", not a JSON number'],
    [null, 'not null'],
    [['1'], 'not a JSON array'],
    [undefined, 'unit_price is required'],
    ['-0.01', 'unit_price must not be negative'],
    ['1.00001', 'unit_price has at most 4 decimals'],
    ['1e3', 'no sign, exponent or spaces'],
    ['+1', 'no sign, exponent or spaces'],
    [' 1', 'no sign, exponent or spaces'],
    ['.5', 'no sign, exponent or spaces'],
    ['5.', 'no sign, exponent or spaces'],
    ['', 'no sign, exponent or spaces'],
    ['NaN', 'no sign, exponent or spaces'],
    ['1000000.0001', 'unit_price must be at most 1000000'],
    ['99999999999999999999', 'unit_price must be at most 1000000'],
  ])('refuses %j: %s', (input, expected) => {
    expect(message(price, input)).toContain(expected);
  });

  it('says one thing at a time', () => {
    expect(message(price, '1.00001')).toBe('unit_price has at most 4 decimals');
    expect(message(price, 'abc')).not.toContain(';');
  });

  it('refuses 0 where an amount must be positive', () => {
    expect(message(charge, '0.00')).toBe('amount must be more than 0');
    expect(message(price, '0.00')).toBeUndefined();
  });

  it('names the whole-amount rule for 0-digit currencies', () => {
    expect(message(moneyText('amount', { decimals: 0, max: 10 }), '1.5')).toBe('amount is a whole amount in this currency: no decimals');
  });
});
