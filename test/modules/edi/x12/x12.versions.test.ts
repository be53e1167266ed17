import { describe, expect, it } from 'vitest';
import { parseX12 } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Interchange, PartialInterchange, X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';
import { checkInterchange, chooseTable } from '../../../../src/modules/edi/x12/x12.validate.js';
import { inline850, readFixture } from './x12.fixtures.js';

/** The parsed interchange, or what the parser could read of it: group-level version checks are not this file's subject. */
function envelope(text: string): Interchange | PartialInterchange {
  const result = parseX12(text);
  if (result.ok) return result.interchange;
  if (result.envelope === undefined) throw new Error(JSON.stringify(result.issues));
  return result.envelope;
}

/** The same text with GS08 (and, for 005010, ISA12) set to `version`. */
function asVersion(text: string, version: string): string {
  const out = text.replace(/\*X\*004010~/g, `*X*${version}~`);
  return version.startsWith('005010') ? out.replace('*U*00401*', '*^*00501*') : out;
}

function rows(issues: readonly X12Issue[]): unknown[][] {
  return issues.map((i) => [i.code, i.segmentId, i.position, i.element]);
}

// The 004010 fixture with its N9 note written as MTX, as 005010 partners send it.
const WITH_MTX = readFixture('850-4010-single.x12').replace('MSG*ISAAC said', 'MTX**ISAAC said');

describe('transaction-set tables per version', () => {
  it('checks a 005010 850 against 005010 table: MTX in the N9 loop is valid there', () => {
    const result = checkInterchange(envelope(asVersion(WITH_MTX, '005010')));
    expect(result.issues).toEqual([]);
    expect(result.tables).toEqual([
      { groupControl: '101', setControl: '0001', setId: '850', position: 3, version: '005010', table: '005010', fallback: false },
    ]);
  });

  it('checks a 004010 850 against 004010 table: MTX belongs to its ADV loop only, not to N9', () => {
    const result = checkInterchange(envelope(WITH_MTX));
    expect(rows(result.issues)).toEqual([['AK304:2', 'MTX', 8, undefined]]);
    expect(result.tables.map((t) => [t.table, t.fallback])).toEqual([['004010', false]]);
  });

  it('places segments by the version: PWK after N9 is 005010 N9 loop, out of sequence in 004010', () => {
    const body = ['BEG*00*SA*A**20240115', 'N9*ZZ*NOTE', 'PWK*BY', 'PO1*1*1*EA*1'];
    expect(rows(checkInterchange(envelope(asVersion(inline850(body), '005010'))).issues)).toEqual([]);
    expect(rows(checkInterchange(envelope(inline850(body))).issues)).toEqual([['AK304:7', 'PWK', 6, undefined]]);
  });

  it("applies each version's syntax notes: N402 with N407 is an exclusion in 005010 only", () => {
    const body = ['BEG*00*SA*A**20240115', 'N1*ST*Store', 'N4*Toronto*ON*M5V1A1*CA***ON', 'PO1*1*1*EA*1'];
    expect(rows(checkInterchange(envelope(asVersion(inline850(body), '005010'))).issues)).toEqual([['AK403:10', 'N4', 6, 7]]);
    expect(checkInterchange(envelope(inline850(body))).issues).toEqual([]);
  });

  it('takes GS08 industry suffixes as their version (004010VICS uses the 004010 table)', () => {
    expect(chooseTable('850', '004010VICS')).toMatchObject({ schema: { version: '004010' }, fallback: false });
    expect(chooseTable('997', '005010X231A1')).toMatchObject({ schema: { version: '005010' }, fallback: false });
    expect(chooseTable('855', '004010')).toBeUndefined();
  });

  it.each([
    ['003060', '004010'],
    ['003040', '004010'],
    ['004030', '004010'],
    ['004060', '004010'],
    ['005030', '005010'],
    ['006020', '005010'],
    ['008010', '005010'],
    ['ABCDEF', '004010'],
    ['', '004010'],
  ])('falls back from GS08 %s to the nearest table, %s', (version, table) => {
    expect(chooseTable('850', version)).toMatchObject({ schema: { version: table }, fallback: true });
  });

  it('a fallback set gets envelope and syntax checks only, and the result says so', () => {
    // An 003060 order: six-digit dates, a segment the 004010 table lacks, an extra BEG element, a code 004010 lacks.
    const ok = ['BEG*00*SA*A**240115****ZZ*X1*X2*X3', 'ZZZ*1', 'PO1*1*1*EA*1', 'CUR*BY*ABC'];
    const result = checkInterchange(envelope(asVersion(inline850(ok), '003060')));
    expect(result.issues).toEqual([]);
    expect(result.tables).toEqual([
      expect.objectContaining({ version: '003060', table: '004010', fallback: true, note: expect.stringContaining('003060') as unknown }),
    ]);
    // What holds in every version is still reported: syntax notes, data types, mandatory segments and code shape.
    const bad = ['BEG*00*sa*A**240231', 'CUR*BY*usd', 'PER*IC*Bob*TE', 'CTT*1'];
    expect(rows(checkInterchange(envelope(asVersion(inline850(bad), '008010'))).issues)).toEqual([
      ['AK403:7', 'BEG', 4, 2],
      ['AK403:8', 'BEG', 4, 5],
      ['AK403:7', 'CUR', 5, 2],
      ['AK403:2', 'PER', 6, 4],
      ['AK304:3', 'PO1', 7, undefined],
    ]);
  });

  it('a 005010 fixture with several sets reports the table of each', () => {
    const result = checkInterchange(envelope(readFixture('850-5010-multi.x12')));
    expect(result.issues).toEqual([]);
    expect(result.tables.map((t) => [t.setControl, t.table, t.fallback])).toEqual([
      ['1001', '005010', false],
      ['1002', '005010', false],
      ['1003', '005010', false],
    ]);
  });
});

describe('the fallback note echoes GS08 bounded', () => {
  it('cuts a long or binary GS08 to 12 printable characters', () => {
    const text = inline850(['BEG*00*SA*A**20240115', 'PO1*1*1*EA*1']).replace('*X*004010~', `*X*009\u0001${'9'.repeat(100_000)}~`);
    const [table] = checkInterchange(envelope(text)).tables;
    expect(table?.version).toBe('009?99999999');
    expect(table?.note?.length).toBeLessThan(120);
    expect(table).toMatchObject({ table: '004010', fallback: true });
  });
});
