import { describe, expect, it } from 'vitest';
import { assess997, build997, type Ack997 } from '../../../../src/modules/edi/x12/x12.ack997.js';
import { echoText, echoX12, echoX12Id } from '../../../../src/modules/edi/x12/x12.delimiters.js';
import { parseX12, validateInterchange } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Interchange, PartialInterchange, Segment, X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';
import { expectConsistent997, readAck } from './x12.ack-checks.js';
import { readFixture } from './x12.fixtures.js';

const US = { qualifier: 'ZZ', id: 'TIREGATEWAY' };
const DATE = new Date('2024-02-01T12:34:00Z');

function inbound(text: string): { source: PartialInterchange; issues: X12Issue[] } {
  const result = parseX12(text);
  const source = result.ok ? result.interchange : result.envelope;
  if (source === undefined) throw new Error(JSON.stringify(result.issues));
  return { source, issues: [...result.issues, ...validateInterchange(source)] };
}

function acknowledge(text: string, extra: X12Issue[] = []): Ack997[] {
  const { source, issues } = inbound(text);
  let n = 0;
  return build997(source, [...issues, ...extra], { nextControlNumbers: () => ({ interchange: ++n, group: n }), ourIdentity: US, date: DATE });
}

/** The segments of a 997 between ST and SE, each as its element array with the id first. */
function ackBody(ack: Ack997 | undefined): string[][] {
  return readAck(ack).segments;
}

/** The fixture's structure, comparable across layouts: every segment's id and elements, positions included. */
function structure(ic: Interchange): Segment[][] {
  return ic.groups.flatMap((g) => g.transactionSets.map((s) => [...s.segments]));
}

const SINGLE = readFixture('850-4010-single.x12');

/** The fixture with ISA12 (and ISA11, the repetition separator from 00402 on) set for another version. */
function withVersion(text: string, version: string): string {
  const separator = version >= '00402' ? '^' : 'U';
  return text.replace('*U*00401*', `*${separator}*${version}*`);
}

describe('ISA12 versions 00200 to 00801', () => {
  it.each(['00200', '00300', '00304', '00401', '00402', '00403', '00501', '00601', '00700', '00801'])('reads a %s interchange cleanly', (version) => {
    const result = parseX12(withVersion(SINGLE, version));
    expect(result.ok).toBe(true);
    expect(result.issues).toEqual([]);
    if (!result.ok) return;
    expect(result.interchange.version).toBe(version);
    // ISA11 is the standards identifier 'U' before 00402, the repetition separator from then on.
    expect(result.interchange.delimiters.repetition).toBe(version >= '00402' ? '^' : null);
    expect(structure(result.interchange)).toEqual(structure(inbound(SINGLE).source as Interchange));
    expectConsistent997(ackBody(acknowledge(withVersion(SINGLE, version))[0]));
  });

  it.each(['00199', '00802', '00900', '01000'])('refuses ISA12 %s, outside the range', (version) => {
    const result = parseX12(SINGLE.replace('*00401*', `*${version}*`));
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => [i.code, i.element])).toEqual([['TA105:003', 12]]);
  });

  it.each(['002001', '003040', '004010VICS', '005010X231A1', '006020', '008010', '008020', '008030'])('takes a group whose GS08 is %s', (gs08) => {
    const result = parseX12(SINGLE.replace('*X*004010~', `*X*${gs08}~`));
    expect(result.issues).toEqual([]);
  });

  it.each(['001000', '001999', 'X12', '', '0040100000000'])('rejects a group whose GS08 is %s (AK905 2)', (gs08) => {
    const result = parseX12(SINGLE.replace('*X*004010~', `*X*${gs08}~`));
    expect(result.issues.map((i) => [i.code, i.element])).toEqual([['AK905:2', 8]]);
  });

  it('keeps ISA11 as the standards id before 00402 even when it looks like a separator', () => {
    const result = parseX12(SINGLE.replace('*U*00401*', '*^*00300*'));
    expect(result.ok && result.interchange.delimiters.repetition).toBe(null);
  });

  it('answers each interchange in its own ISA12 version: ISA11 U before 00402, the repetition separator from it', () => {
    const newer = parseX12(acknowledge(withVersion(SINGLE, '00601'))[0]?.x12 ?? '');
    const older = parseX12(acknowledge(withVersion(SINGLE, '00300'))[0]?.x12 ?? '');
    expect(newer.ok && [newer.interchange.version, newer.interchange.isa[10], newer.interchange.delimiters.repetition]).toEqual(['00601', '^', '^']);
    expect(older.ok && [older.interchange.version, older.interchange.isa[10], older.interchange.delimiters.repetition]).toEqual(['00300', 'U', null]);
  });
});

describe('whitespace between segments', () => {
  const lines = SINGLE.split('~\n').filter((l) => l !== '');
  const [isa, ...rest] = lines;
  const canonical = structure(inbound(SINGLE).source as Interchange);

  it.each([
    ['~ \\n', (l: string[]) => `${l.join('~ \n')}~ \n`],
    ['~\\r\\n', (l: string[]) => `${l.join('~\r\n')}~\r\n`],
    ['no line breaks', (l: string[]) => `${l.join('~')}~`],
    ['indented segments', (l: string[]) => [l[0], ...l.slice(1).map((s) => `    ${s}`)].join('~\n') + '~\n'],
    ['tabs and blank lines', (l: string[]) => `${l.join('~\n\t\n\t')}~\n\n`],
    ['spaces after the terminator on one line', (l: string[]) => `${l.join('~   ')}~`],
  ])('reads the same interchange with %s', (_, layout) => {
    const text = layout([isa ?? '', ...rest]);
    const result = parseX12(text);
    expect(result.issues).toEqual([]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(validateInterchange(result.interchange)).toEqual([]);
    expect(structure(result.interchange)).toEqual(canonical);
  });

  it('keeps a space inside or at the end of an element as data', () => {
    const text = SINGLE.replace('N3*100 Main St~', 'N3*100  Main St *Suite 5  ~ ');
    const result = parseX12(text);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const n3 = result.interchange.groups[0]?.transactionSets[0]?.segments.find((s) => s.id === 'N3');
    expect(n3?.elements).toEqual(['100  Main St ', 'Suite 5  ']);
  });

  it('reads an indented interchange whose segment terminator is the newline itself', () => {
    const text = readFixture('newline-terminator.x12');
    const base = inbound(text).source as Interchange;
    const [head, ...body] = text.split('\n');
    const indented = [head, ...body.map((l) => (l === '' ? l : `  ${l}`))].join('\n');
    const result = parseX12(indented);
    expect(result.issues).toEqual([]);
    expect(result.ok && structure(result.interchange)).toEqual(structure(base));
  });

  it('still holds the ISA to 106 characters: whitespace inside it is padding, not layout', () => {
    const short = SINGLE.replace('*BUYERCO        *', '*BUYERCO       *');
    const result = parseX12(`  \n${short}`);
    expect(result.ok).toBe(false);
    expect(result.issues.map((i) => i.code)).toContain('TA105:022');
    const long = parseX12(SINGLE.replace('*BUYERCO        *', '*BUYERCO         *'));
    expect(long.issues.map((i) => [i.code, i.element])).toContainEqual(['TA105:022', 6]);
  });
});

/** `count` groups of one 850 each, every group numbered from 1, with the given set body. */
function manyGroups(count: number, body = ['BEG*00*SA*PO-1**20240115']): string {
  const isa = SINGLE.split('\n')[0] ?? '';
  const parts = [isa];
  for (let g = 1; g <= count; g++) {
    parts.push(`GS*PO*BUYERCO*TIREGW*20240115*1030*${g}*X*004010~ST*850*0001~${body.map((s) => `${s}~`).join('')}SE*${body.length + 2}*0001~GE*1*${g}~`);
  }
  parts.push(`IEA*${count}*000000101~`);
  return parts.join('\n');
}

describe('997s for many groups', () => {
  it('judges 40,000 one-set groups, each with its own findings', () => {
    const { source, issues } = inbound(manyGroups(40_000));
    const verdicts = assess997(source, issues);
    expect(verdicts).toHaveLength(40_000);
    // Each set lacks its mandatory PO1: one AK3 per set, never another group's.
    expect(verdicts.every((v) => v.code === 'R' && v.sets.length === 1 && v.sets[0]?.issues.length === 1)).toBe(true);
  });

  it('files findings of groups that share a GS06 by position', () => {
    const text = manyGroups(3_000).replace(/\*X\*004010~/g, '*X*004010~').replace(/GE\*1\*(\d+)~/g, 'GE*1*7~').replace(/(\*1030\*)\d+(\*X\*004010)/g, '$17$2');
    const { source, issues } = inbound(text);
    const verdicts = assess997(source, issues);
    expect(verdicts).toHaveLength(3_000);
    // The first GS06 7 is fine; every later one is a duplicate (AK905 19) of its own, and nothing else.
    expect(verdicts[0]?.issues).toEqual([]);
    expect(verdicts.slice(1).every((v) => v.issues.length === 1 && v.issues[0]?.code === 'AK905:19')).toBe(true);
  });

  it('files findings of sets that share an ST02 by position', () => {
    const isa = SINGLE.split('\n')[0] ?? '';
    const sets = Array.from({ length: 2_000 }, (_, i) => (i === 500 ? 'ST*850*0001~BEG*00*SA*PO-1**20240115~SE*9*0001~' : 'ST*850*0001~BEG*00*SA*PO-1**20240115~SE*3*0001~'));
    const text = [isa, 'GS*PO*BUYERCO*TIREGW*20240115*1030*1*X*004010~', ...sets, 'GE*2000*1~', 'IEA*1*000000101~'].join('\n');
    const { source, issues } = inbound(text);
    const [verdict] = assess997(source, issues);
    const counted = verdict?.sets.map((s) => s.issues.filter((i) => i.code === 'AK502:4').length);
    expect(counted?.filter((n) => n > 0)).toEqual([1]);
    expect(counted?.[500]).toBe(1);
  });
});

describe('echoes into the 997 and JSON', () => {
  it('echoX12 keeps printable ASCII only, trims and cuts to the element width', () => {
    expect(echoX12('  REF ', 3)).toBe('REF');
    expect(echoX12('A\u0001B\u00ffC', 10)).toBe('A?B?C');
    expect(echoX12('x'.repeat(10_000_000), 15)).toBe('x'.repeat(15));
    expect(echoX12('AB   CD', 4)).toBe('AB');
    expect(echoX12Id(' r\u0001EF ', 3)).toBe('EF');
    expect(echoX12Id('\u00ff', 3)).toBe('XX');
  });

  it('echoText drops controls and cuts at 80 characters with a marker', () => {
    expect(echoText('Müller\u0000')).toBe('Müller?');
    const long = echoText('y'.repeat(10_000_000));
    expect(long).toBe(`${'y'.repeat(80)}…`);
  });

  it('a 10 MB GS03 does not make a 10 MB 997', () => {
    const huge = 'G'.repeat(10_000_000);
    const [ack] = acknowledge(SINGLE.replace('*BUYERCO*TIREGW*', `*BUYERCO*${huge}*`));
    expect(ack?.x12.length).toBeLessThan(2_000);
    const result = parseX12(ack?.x12 ?? '');
    expect(result.ok && result.interchange.groups[0]?.gs[1]).toBe('G'.repeat(15));
  });

  it('binary bytes and spaces never land raw in AK3/AK4', () => {
    const text = SINGLE.replace('REF*DP*042~\n', 'REF*DP*042~\n  \u0001\u00feZZ*1~\n').replace('DTM*002*20240201~', 'DTM*002*2024\u0002\u00ff01  ~');
    const [ack] = acknowledge(text);
    const body = ackBody(ack);
    for (const segment of body) for (const value of segment) expect(value).toMatch(/^[\x20-\x7e]*$/);
    for (const segment of body) for (const value of segment) expect(value).toBe(value.trim());
    expect(body.find((s) => s[0] === 'AK3')?.[1]).toBe('ZZ');
    expectConsistent997(body);
  });

  it('an indented segment is named without its indentation in AK3', () => {
    const [ack] = acknowledge(SINGLE.replace('REF*DP*042~\n', 'REF*DP*042~\n  ZZZ*1~\n'));
    expect(ackBody(ack).filter((s) => s[0] === 'AK3').map((s) => s[1])).toEqual(['ZZZ']);
  });
});

describe('997s that agree with themselves', () => {
  const rejectGroups = (source: PartialInterchange): X12Issue[] =>
    source.groups.map((g) => ({ code: 'interchange_rejected', message: 'envelope', level: 'group', position: g.position, segmentId: 'GS', groupControl: g.controlNumber }));

  it('a group rejected for its envelope rejects every set and names the reason in AK905', () => {
    const text = readFixture('isa-length.x12');
    const { source } = inbound(text);
    const acks = acknowledge(text, rejectGroups(source));
    for (const ack of acks) {
      const body = ackBody(ack);
      expectConsistent997(body);
      expect(body.filter((s) => s[0] === 'AK5').every((s) => s[1] === 'R')).toBe(true);
      expect(body.find((s) => s[0] === 'AK9')).toEqual(['AK9', 'R', '1', '1', '0', '1']);
    }
  });

  it('a wrong GE01 gives AK5 R for the sound set and AK9 R with AK905 5', () => {
    const body = ackBody(acknowledge(readFixture('ge-iea-counts-wrong.x12'))[0]);
    expectConsistent997(body);
    expect(body.map((s) => s.join('*'))).toEqual(['AK1*PO*707', 'AK2*850*0001', 'AK5*R', 'AK9*R*3*1*0*5']);
  });

  it.each(['850-4010-single.x12', '850-5010-multi.x12', '850-multi-group.x12', 'missing-beg.x12', 'se-count-wrong.x12', 'stray-segment.x12', 'truncated-body.x12', 'unknown-segment.x12', 'control-mismatch.x12'])(
    'every 997 of %s is consistent',
    (name) => {
      for (const ack of acknowledge(readFixture(name))) expectConsistent997(ackBody(ack));
    },
  );
});
