import { describe, expect, it } from 'vitest';
import { isValidDate, isValidTime } from '../../../../src/modules/edi/x12/x12.elements.js';
import { parseX12, validateInterchange, validateTransactionSet } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Interchange, TransactionSet, X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';
import { inline850, readFixture, VALID_FIXTURES } from './x12.fixtures.js';

function interchange(text: string): Interchange {
  const result = parseX12(text);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.interchange;
}

function firstSet(text: string): TransactionSet {
  const set = interchange(text).groups[0]?.transactionSets[0];
  if (set === undefined) throw new Error('no set');
  return set;
}

/** [code, segment id, interchange position, element, loop id, element ref, value] of each finding. */
function rows(issues: readonly X12Issue[]): unknown[][] {
  return issues.map((i) => [i.code, i.segmentId, i.position, i.element, i.loopId, i.elementRef, i.value]);
}

describe('validateTransactionSet', () => {
  it.each(VALID_FIXTURES)('finds nothing wrong in %s', (name) => {
    expect(validateInterchange(interchange(readFixture(name)))).toEqual([]);
  });

  it('reports a missing BEG where it was expected (AK304 3)', () => {
    const ic = interchange(readFixture('missing-beg.x12'));
    const issues = validateInterchange(ic);
    expect(issues).toEqual([
      expect.objectContaining({ level: 'segment', code: 'AK304:3', segmentId: 'BEG', position: 4, groupControl: '909', setControl: '0001' }),
    ]);
  });

  it('reports unknown, foreign and misplaced segments and bad elements', () => {
    const set = firstSet(readFixture('unknown-segment.x12'));
    expect(rows(validateTransactionSet(set, '1010'))).toEqual([
      ['AK403:7', 'BEG', 4, 1, undefined, '353', '99'],
      ['AK403:8', 'BEG', 4, 5, undefined, '373', '20240231'],
      ['AK304:1', 'ZZZ', 5, undefined, undefined, undefined, undefined],
      ['AK304:6', 'BIG', 6, undefined, undefined, undefined, undefined],
      ['AK403:4', 'DTM', 8, 2, 'PO1', '373', '2024013'],
      ['AK403:6', 'CTT', 9, 1, 'CTT', '354', 'x'],
      ['AK304:7', 'REF', 10, undefined, undefined, undefined, undefined],
    ]);
  });

  it('reports a segment used more often than allowed (AK304 5)', () => {
    const set = firstSet(inline850(['BEG*00*SA*A**20240115', 'PER*BD*A', 'PER*BD*B', 'PER*BD*C', 'PER*BD*D', 'PO1*1*1*EA*1']));
    expect(rows(validateTransactionSet(set))).toEqual([['AK304:5', 'PER', 8, undefined, undefined, undefined, undefined]]);
  });

  it('reports a loop repeated more often than allowed (AK304 4)', () => {
    const set = firstSet(inline850(['BEG*00*SA*A**20240115', 'PO1*1*1*EA*1', 'CTT*1', 'CTT*1']));
    expect(rows(validateTransactionSet(set))).toEqual([['AK304:4', 'CTT', 7, undefined, 'CTT', undefined, undefined]]);
  });

  it('reports a missing mandatory loop at the trailer, and a missing mandatory segment inside a loop', () => {
    expect(rows(validateTransactionSet(firstSet(inline850(['BEG*00*SA*A**20240115']))))).toEqual([
      ['AK304:3', 'PO1', 5, undefined, 'PO1', undefined, undefined],
    ]);
    // LS opens a loop that must close with LE.
    const set = firstSet(inline850(['BEG*00*SA*A**20240115', 'PO1*1*1*EA*1', 'LS*1', 'CTT*1']));
    expect(rows(validateTransactionSet(set))).toEqual([['AK304:3', 'LE', 7, undefined, 'LS', undefined, undefined]]);
  });

  it('accepts repeated loops, nested loops and the same segment id in different loops', () => {
    const set = firstSet(
      inline850([
        'BEG*00*SA*A**20240115',
        'REF*DP*1',
        'N1*ST*Store',
        'REF*ST*9',
        'N1*BT*Billing',
        'PO1*1*1*EA*1',
        'PID*F****Tire',
        'MEA*PD*WT*10',
        'REF*LI*1',
        'N1*ST*Drop',
        'PO1*2*1*EA*1',
        'SAC*C*D240',
        'CTT*2',
        'AMT*TT*2',
      ]),
    );
    expect(validateTransactionSet(set)).toEqual([]);
  });

  it('checks element presence, count, length, numbers, dates and times', () => {
    const set = firstSet(
      inline850([
        'BEG*00*SA**X*20240115*C1*AC*INV*CT*PC*SL*TT*EXTRA',
        'DTM*002*20240101*2561',
        'PO1*1*1.2.3*EA*1',
        'N1*ST*ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHI',
        'CTT*1',
      ]),
    );
    expect(rows(validateTransactionSet(set))).toEqual([
      ['AK403:3', 'BEG', 4, 13, undefined, undefined, 'EXTRA'],
      ['AK403:1', 'BEG', 4, 3, undefined, '324', undefined],
      ['AK403:9', 'DTM', 5, 3, undefined, '337', '2561'],
      ['AK403:6', 'PO1', 6, 2, 'PO1', '330', '1.2.3'],
      ['AK403:5', 'N1', 7, 2, 'N1', '93', 'ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHI'],
    ]);
  });

  it('checks 997 sets and leaves other sets (855, 856, 810) to the envelope checks', () => {
    const ack = interchange(readFixture('850-multi-group.x12')).groups[2]?.transactionSets[0];
    if (ack === undefined) throw new Error('no 997');
    expect(validateTransactionSet(ack)).toEqual([]);
    const bad = firstSet(inline850(['AK1*PO*1', 'AK9*Z*1*1*1']).replace('ST*850', 'ST*997').replace('GS*PO', 'GS*FA'));
    expect(rows(validateTransactionSet(bad))).toEqual([['AK403:7', 'AK9', 5, 1, undefined, '715', 'Z']]);
    const other = firstSet(inline850(['BAK*00*AC*PO-1*20240115', 'ZZZ*1']).replace('ST*850', 'ST*855'));
    expect(validateTransactionSet(other)).toEqual([]);
  });

  it('caps the findings of one set so a garbage set cannot flood the 997', () => {
    const body = ['BEG*00*SA*A**20240115', 'PO1*1*1*EA*1', ...Array.from({ length: 300 }, (_, i) => `Z${i % 10}*x`)];
    const issues = validateTransactionSet(firstSet(inline850(body)));
    expect(issues).toHaveLength(201);
    expect(issues.at(-1)).toMatchObject({ code: 'issues_truncated', level: 'set' });
  });
});

describe('date and time checks', () => {
  it.each([
    ['20240229', true],
    ['20230229', false],
    ['20241301', false],
    ['20240431', false],
    ['240115', true],
    ['2024011', false],
  ])('date %s valid: %s', (value, valid) => {
    expect(isValidDate(value)).toBe(valid);
  });

  it.each([
    ['2359', true],
    ['235959', true],
    ['23595999', true],
    ['2400', false],
    ['1260', false],
    ['123', false],
  ])('time %s valid: %s', (value, valid) => {
    expect(isValidTime(value)).toBe(valid);
  });
});
