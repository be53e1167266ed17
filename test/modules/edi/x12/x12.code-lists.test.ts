import { describe, expect, it } from 'vitest';
import { CURRENCY_CODES, isCodeShaped } from '../../../../src/modules/edi/x12/x12.code-lists.js';
import { parseX12, validateTransactionSet } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';
import { inline850 } from './x12.fixtures.js';

function findings(body: readonly string[]): unknown[][] {
  const result = parseX12(inline850(['BEG*00*SA*A**20240115', ...body]));
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const set = result.interchange.groups[0]?.transactionSets[0];
  if (set === undefined) throw new Error('no set');
  return validateTransactionSet(set).map((i: X12Issue) => [i.code, i.segmentId, i.element, i.elementRef, i.value]);
}

describe('code lists', () => {
  it('CUR02 and CUR05 are ISO 4217 currency codes (AK403 7)', () => {
    expect(findings(['CUR*00*XYZ', 'PO1*1*1*EA*1'])).toEqual([['AK403:7', 'CUR', 2, '100', 'XYZ']]);
    expect(findings(['CUR*BY*EUR*1.0825*SE*USD', 'PO1*1*1*EA*1'])).toEqual([]);
    expect(findings(['CUR*BY*EUR*1.0825*SE*EUX', 'PO1*1*1*EA*1'])).toEqual([['AK403:7', 'CUR', 5, '100', 'EUX']]);
  });

  it('holds the ISO 4217 list complete: three upper-case letters, no duplicates, the usual currencies in it', () => {
    expect(new Set(CURRENCY_CODES).size).toBe(CURRENCY_CODES.length);
    expect(CURRENCY_CODES.every((c) => /^[A-Z]{3}$/.test(c))).toBe(true);
    for (const code of ['USD', 'CAD', 'MXN', 'EUR', 'GBP', 'JPY', 'CNY', 'CHF', 'AUD', 'INR', 'BRL']) expect(CURRENCY_CODES).toContain(code);
  });

  it('checks BEG01 against the purpose codes and PID01 against the description types', () => {
    expect(findings(['PO1*1*1*EA*1', 'PID*Q****Tire']).map((r) => r.slice(0, 3))).toEqual([['AK403:7', 'PID', 1]]);
    const result = parseX12(inline850(['BEG*09*SA*A**20240115', 'PO1*1*1*EA*1']));
    if (!result.ok) throw new Error('not parsed');
    const set = result.interchange.groups[0]?.transactionSets[0];
    if (set === undefined) throw new Error('no set');
    expect(validateTransactionSet(set).map((i) => [i.code, i.element, i.value])).toEqual([['AK403:7', 1, '09']]);
  });

  it('accepts any well-formed code in elements whose dictionary it does not hold (PO103, PO106, N101, REF01, DTM01, PER01)', () => {
    expect(
      findings(['REF*ZZ9*1', 'PER*ZZ*Bob', 'DTM*999*20240115', 'N1*Z7*Store', 'PO1*1*1*CA*1**ZZ*SKU-1*A1*X', 'CTT*1']),
    ).toEqual([]);
  });

  it('refuses a value that cannot be a code in any list or version: lower case, punctuation', () => {
    expect(findings(['REF*dp*1', 'PO1*1*1*ea*1**vp*SKU-1'])).toEqual([
      ['AK403:7', 'REF', 1, '128', 'dp'],
      ['AK403:7', 'PO1', 3, '355', 'ea'],
      ['AK403:7', 'PO1', 6, '235', 'vp'],
    ]);
    expect(isCodeShaped('EA')).toBe(true);
    expect(isCodeShaped('E A')).toBe(false);
  });
});
