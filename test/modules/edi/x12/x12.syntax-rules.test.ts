import { describe, expect, it } from 'vitest';
import { build997 } from '../../../../src/modules/edi/x12/x12.ack997.js';
import { parseX12, validateInterchange, validateTransactionSet } from '../../../../src/modules/edi/x12/x12.parser.js';
import { SCHEMA_850_5010 } from '../../../../src/modules/edi/x12/x12.schema-850-5010.js';
import { syntaxRule } from '../../../../src/modules/edi/x12/x12.schema.js';
import { checkSyntaxRules } from '../../../../src/modules/edi/x12/x12.syntax-rules.js';
import type { TransactionSet, X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';
import { inline850, readFixture } from './x12.fixtures.js';

function firstSet(text: string): TransactionSet {
  const result = parseX12(text);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  const set = result.interchange.groups[0]?.transactionSets[0];
  if (set === undefined) throw new Error('no set');
  return set;
}

/** [code, segment id, interchange position, element, element ref, value] of each finding. */
function rows(issues: readonly X12Issue[]): unknown[][] {
  return issues.map((i) => [i.code, i.segmentId, i.position, i.element, i.elementRef, i.value]);
}

/** Findings for one body segment placed where the 850 allows it (position 5, after BEG). */
function findings(segment: string, before: readonly string[] = []): unknown[][] {
  const set = firstSet(inline850(['BEG*00*SA*A**20240115', ...before, segment, 'PO1*1*1*EA*1']));
  return rows(validateTransactionSet(set));
}

const codes = (segmentId: string, values: readonly string[], notes: readonly string[]): unknown[][] =>
  checkSyntaxRules(segmentId, values, notes.map(syntaxRule)).map((p) => [p.code, p.element]);

describe('relational syntax rules (X12.6 syntax notes)', () => {
  it('reads the notation of the standard', () => {
    expect(syntaxRule('P0304')).toEqual({ kind: 'P', elements: [3, 4] });
    expect(syntaxRule('R020305')).toEqual({ kind: 'R', elements: [2, 3, 5] });
    expect(() => syntaxRule('Q0102')).toThrow();
    expect(() => syntaxRule('P03')).toThrow();
  });

  it.each([
    ['P: any present, all present', ['P0304'], ['A', 'B', 'C', ''], [['AK403:2', 4]]],
    ['P: the missing one is named whichever is given', ['P0304'], ['A', 'B', '', 'D'], [['AK403:2', 3]]],
    ['P: none present is fine', ['P0304'], ['A', 'B'], []],
    ['R: at least one', ['R0203'], ['A'], [['AK403:2', 2]]],
    ['R: one is enough', ['R0203'], ['A', '', 'C'], []],
    ['E: not more than one, the second is at fault', ['E0207'], ['A', 'B', '', '', '', '', 'G'], [['AK403:10', 7]]],
    ['E: one alone is fine', ['E0207'], ['A', 'B'], []],
    ['C: first present, all others present', ['C0504'], ['A', '', '', '', 'E'], [['AK403:2', 4]]],
    ['C: others alone are fine', ['C0504'], ['A', '', '', 'D'], []],
    ['L: first present, at least one other', ['L101112'], ['', '', '', '', '', '', '', '', '', 'J'], [['AK403:2', 11]]],
    ['L: one other is enough', ['L101112'], ['', '', '', '', '', '', '', '', '', 'J', '', 'L'], []],
  ])('%s', (_name, notes, values, expected) => {
    expect(codes('XYZ', values, notes)).toEqual(expected);
  });

  it.each([
    ['PER*IC*Bob*TE', ['AK403:2', 'PER', 5, 4, '364', undefined]],
    ['PER*IC*Bob*TE*555-1234*EM', ['AK403:2', 'PER', 5, 6, '364', undefined]],
    ['PER*IC*Bob***FX*555-9999*EM', ['AK403:2', 'PER', 5, 8, '364', undefined]],
    ['REF*DP', ['AK403:2', 'REF', 5, 2, '127', undefined]],
    ['DTM*002', ['AK403:2', 'DTM', 5, 2, '373', undefined]],
    ['DTM*002*20240115**ES', ['AK403:2', 'DTM', 5, 3, '337', undefined]],
    ['DTM*002*20240115****20240115', ['AK403:2', 'DTM', 5, 5, '1250', undefined]],
    ['CUR*BY*USD******20240115', ['AK403:2', 'CUR', 5, 7, '374', undefined]],
    ['CUR*BY*USD*********20240115', ['AK403:2', 'CUR', 5, 10, '374', undefined]],
  ])('%s is an AK4 with AK403 2 at the element to add', (segment, expected) => {
    expect(findings(segment)).toEqual([expected]);
  });

  it.each([
    ['N1*ST', ['AK403:2', 'N1', 5, 2, '93', undefined]],
    ['N1*ST*Store*92', ['AK403:2', 'N1', 5, 4, '67', undefined]],
    ['N1*ST**92*S-1', undefined],
  ])('N1 %s', (segment, expected) => {
    expect(findings(segment)).toEqual(expected === undefined ? [] : [expected]);
  });

  it('checks the detail segments: PO1 pairs and conditionals, PID and CTT', () => {
    const set = firstSet(
      inline850([
        'BEG*00*SA*A**20240115',
        'PO1*1**EA*1',
        'PO1*2*1*EA**PE',
        'PO1*3*1*EA*1**VP',
        'PO1*4*1*EA*1**VP*SKU-4*UP',
        'PID*F',
        'PID*F**AB*X1',
        'CTT*4**10',
      ]),
    );
    expect(rows(validateTransactionSet(set))).toEqual([
      ['AK403:2', 'PO1', 5, 2, '330', undefined],
      ['AK403:2', 'PO1', 6, 4, '212', undefined],
      ['AK403:2', 'PO1', 7, 7, '234', undefined],
      ['AK403:2', 'PO1', 8, 9, '234', undefined],
      ['AK403:2', 'PID', 9, 4, '751', undefined],
      ['AK403:2', 'CTT', 11, 4, '355', undefined],
    ]);
  });

  it('governs every X (relational) element of the 850 segments by a note, as the standard does', () => {
    const ungoverned = Object.entries(SCHEMA_850_5010.elements).flatMap(([id, spec]) =>
      spec.rules.flatMap((rule, i) => (rule.req === 'X' && !(spec.syntax ?? []).some((n) => n.elements.includes(i + 1)) ? [`${id}${i + 1}`] : [])),
    );
    expect(ungoverned).toEqual([]);
  });

  it('keeps every valid fixture valid: their segments satisfy the notes', () => {
    const set = firstSet(readFixture('850-4010-single.x12'));
    expect(validateTransactionSet(set)).toEqual([]);
  });

  it('reaches the 997 as AK4 lines with AK403 2, 7 and 10 at the offending element', () => {
    const text = inline850(['BEG*00*SA*A**20240115', 'CUR*00*XYZ', 'REF*DP', 'PER*IC*Bob*TE', 'PO1*1*1*EA*1'])
      .replace('*U*00401*', '*^*00501*')
      .replace('*X*004010~', '*X*005010~')
      .replace('ST*850*0001~', 'ST*850*0001*005010~');
    const withN4 = text.replace('PO1*1*1*EA*1~', 'N1*ST*Store~\nN4*Toronto*ON*M5V1A1*CA***ON~\nPO1*1*1*EA*1~').replace('SE*7*', 'SE*9*');
    const result = parseX12(withN4);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const acks = build997(result.interchange, [...result.issues, ...validateInterchange(result.interchange)], {
      nextControlNumbers: () => ({ interchange: 7, group: 7 }),
      ourIdentity: { qualifier: 'ZZ', id: 'TIREGATEWAY' },
      date: new Date('2024-02-01T12:00:00Z'),
    });
    const lines = (acks[0]?.x12 ?? '').split('\n').filter((l) => l.startsWith('AK'));
    expect(lines).toEqual([
      'AK1*PO*101*005010~',
      'AK2*850*0001*005010~',
      'AK3*CUR*3**8~',
      'AK4*2*100*7*XYZ~',
      'AK3*REF*4**8~',
      'AK4*2*127*2~',
      'AK3*PER*5**8~',
      'AK4*4*364*2~',
      'AK3*N4*7*N1*8~',
      'AK4*7*1715*10*ON~',
      'AK5*R*5~',
      'AK9*R*1*1*0~',
    ]);
  });
});
