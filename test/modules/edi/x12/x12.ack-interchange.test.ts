import { describe, expect, it } from 'vitest';
import { ackCode, ackCodes, type AckElement } from '../../../../src/modules/edi/x12/x12.ack-codes.js';
import { ackControlNumbersNeeded, assess997, build997, write997Interchange } from '../../../../src/modules/edi/x12/x12.ack997.js';
import { parseX12, validateInterchange } from '../../../../src/modules/edi/x12/x12.parser.js';
import { TA1_NOTES } from '../../../../src/modules/edi/x12/x12.ta1.js';
import { LENIENT_TOLERATES, tolerated } from '../../../../src/modules/edi/x12/x12.tolerance.js';
import { X12_CODES, type Interchange, type X12Issue } from '../../../../src/modules/edi/x12/x12.types.js';

const US = { qualifier: 'ZZ', id: 'TIREGATEWAY' };
const DATE = new Date('2024-02-01T12:34:00Z');

const set850 = (control: string, body: readonly string[] = ['BEG*00*SA*PO-1**20240115', 'N1*ST*STORE 1', 'PO1*1*4*EA*89.99**VP*TIRE-225']): string[] => [
  `ST*850*${control}`,
  ...body,
  'CTT*1',
  `SE*${body.length + 3}*${control}`,
];

function interchange(isa12: string, groups: { control: string; version: string; sets: string[][]; ge01?: string }[]): string {
  const rep = isa12 >= '00402' ? '^' : 'U';
  const isa = `ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *240115*1030*${rep}*${isa12}*000000101*1*P*>`;
  const body = groups.flatMap((g) => [`GS*PO*BUYERCO*TIREGW*20240115*1030*${g.control}*X*${g.version}`, ...g.sets.flat(), `GE*${g.ge01 ?? g.sets.length}*${g.control}`]);
  return [isa, ...body, `IEA*${groups.length}*000000101`].map((s) => `${s}~\n`).join('');
}

function read(text: string): { ic: Interchange; issues: X12Issue[] } {
  const parsed = parseX12(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return { ic: parsed.interchange, issues: [...parsed.issues, ...validateInterchange(parsed.interchange)] };
}

function clean(x12: string): Interchange {
  const parsed = parseX12(x12);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  expect(parsed.issues).toEqual([]);
  expect(validateInterchange(parsed.interchange)).toEqual([]);
  return parsed.interchange;
}

const lines = (ic: Interchange, g = 0, s = 0): string[] => ic.groups[g]?.transactionSets[s]?.segments.slice(1, -1).map((x) => [x.id, ...x.elements].join('*')) ?? [];

const VERSIONS = ['002003', '002040', '003010', '003040', '003050', '003060', '004010', '004020', '004030', '004050', '005010', '005040', '006010', '007010', '008010', '008030'];

/** Every AK/TA1 code a finding of the gateway can carry, with the element it lands in. */
const FINDING_CODES: [AckElement, string][] = [
  ...Object.values(X12_CODES).flatMap((code): [AckElement, string][] => {
    const [element, value] = code.split(':');
    const into: Record<string, AckElement> = { AK905: '716', AK502: '718', AK304: '720', AK403: '723', TA105: 'I18' };
    const target = element === undefined ? undefined : into[element];
    return target === undefined || value === undefined ? [] : [[target, value]];
  }),
  // Written without a finding of their own: not supported set (the intake's), group rejected, segment in error.
  ['718', '1'], ['716', '1'], ['718', '5'], ['720', '8'],
  ...Object.values(TA1_NOTES).map((note): [AckElement, string] => ['I18', note]),
  ...['A', 'E', 'P', 'R'].map((c): [AckElement, string] => ['715', c]),
  ...['A', 'E', 'R'].map((c): [AckElement, string] => ['717', c]),
  ...['A', 'E', 'R'].map((c): [AckElement, string] => ['I17', c]),
];

describe('codes per version', () => {
  it.each(VERSIONS)('every code a finding can produce is written as a code %s holds', (version) => {
    for (const [element, code] of FINDING_CODES) expect(ackCodes(element, version), `${element} ${code} in ${version}`).toContain(ackCode(element, code, version));
  });

  it('a duplicate GS06 is 19 where 716 holds it (004050 on) and 6 (violates syntax) before', () => {
    expect(['003040', '004010', '004020', '004050', '005010'].map((v) => ackCode('716', '19', v))).toEqual(['6', '6', '6', '19', '19']);
    expect(ackCodes('716', '004010').has('19')).toBe(false);
  });

  it.each(['003040', '004010', '005010', '006020'])('a generated %s 997 carries only codes its version holds', (version) => {
    const text = interchange('00401', [
      { control: '7', version, sets: [set850('0001'), set850('0001'), set850('0003', ['BEG*99*SA*PO-1**20240115', 'REF*DP', 'PO1*1*4*EA*89.99**VP*TIRE-225'])] },
      { control: '7', version, sets: [set850('0001')] },
    ]);
    const { ic, issues } = read(text);
    const acks = build997(ic, issues, { nextControlNumbers: () => ({ interchange: 1, group: 1 }), ourIdentity: US, date: DATE });
    for (const ack of acks) {
      const out = clean(ack.x12);
      expect(out.groups[0]?.version).toBe(version);
      for (const segment of out.groups[0]?.transactionSets[0]?.segments ?? []) {
        const e = segment.elements;
        if (segment.id === 'AK9') {
          expect(ackCodes('715', version)).toContain(e[0]);
          for (const c of e.slice(4)) expect(ackCodes('716', version)).toContain(c);
        }
        if (segment.id === 'AK5') {
          expect(ackCodes('717', version)).toContain(e[0]);
          for (const c of e.slice(1)) expect(ackCodes('718', version)).toContain(c);
        }
        if (segment.id === 'AK3') expect(ackCodes('720', version)).toContain(e[3]);
        if (segment.id === 'AK4') expect(ackCodes('723', version)).toContain(e[2]);
      }
    }
    expect(lines(clean(acks[1]?.x12 ?? '')).at(-1)).toBe(`AK9*R*1*1*0*${version >= '004050' ? '19' : '6'}`);
  });
});

describe('the answer in the inbound envelope version', () => {
  it.each([
    ['00402', '005010', '^'],
    ['00300', '003040', 'U'],
    ['00801', '008010', '^'],
  ])('ISA12 %s with a %s group: the 997 is ISA12 %s, its GS08 the group\'s version', (isa12, version, isa11) => {
    const { ic, issues } = read(interchange(isa12, [{ control: '5', version, sets: [set850('0001')] }]));
    const [ack] = build997(ic, issues, { nextControlNumbers: () => ({ interchange: 1, group: 1 }), ourIdentity: US, date: DATE });
    const out = clean(ack?.x12 ?? '');
    expect([out.version, out.isa[10], out.groups[0]?.version]).toEqual([isa12, isa11, version]);
    expect(lines(out)[0]).toBe(version >= '005010' ? `AK1*PO*5*${version}` : 'AK1*PO*5');
  });
});

describe('write997Interchange: one answer per inbound interchange', () => {
  it('puts the TA1 and every 997 in one ISA/IEA, one FA group per version, ST02 0001.. in each', async () => {
    const text = interchange('00501', [
      { control: '11', version: '004010', sets: [set850('0001')] },
      { control: '12', version: '005010', sets: [set850('0001'), set850('0002')] },
      { control: '13', version: '004010', sets: [set850('0001')], ge01: '9' },
    ]);
    const { ic, issues } = read(text);
    const verdicts = assess997(ic, issues);
    expect(ackControlNumbersNeeded(verdicts)).toBe(2);
    const answer = await write997Interchange(ic, verdicts, { controlNumber: 700, ourIdentity: US, date: DATE, ta1: { code: 'A', noteCode: '000' } });
    if (answer === undefined) throw new Error('no answer');
    const out = clean(answer.x12);
    expect(answer.x12.split('\n')[1]).toBe('TA1*000000101*240115*1030*A*000~');
    expect([out.controlNumber, out.version, out.groups.map((g) => [g.controlNumber, g.version, g.transactionSets.map((s) => s.controlNumber)])]).toEqual([
      '000000700',
      '00501',
      [
        ['700', '004010', ['0001', '0002']],
        ['701', '005010', ['0001']],
      ],
    ]);
    expect(answer.groups.map((g) => [g.group, g.code, g.ackGroupControlNumber, g.setControlNumber])).toEqual([
      ['11', 'A', 700, '0001'],
      ['12', 'A', 701, '0001'],
      ['13', 'R', 700, '0002'],
    ]);
    expect(lines(out, 0, 1)).toEqual(['AK1*PO*13', 'AK2*850*0001', 'AK5*R', 'AK9*R*9*1*0*5']);
    expect(lines(out, 1, 0)).toEqual(['AK1*PO*12*005010', 'AK2*850*0001', 'AK5*A', 'AK2*850*0002', 'AK5*A', 'AK9*A*2*2*2']);
  });

  it('answers a TA1 alone when no group is acknowledged, and nothing when nothing is owed', async () => {
    const { ic } = read(interchange('00401', []));
    expect(await write997Interchange(ic, [], { controlNumber: 5, ourIdentity: US, date: DATE })).toBeUndefined();
    const answer = await write997Interchange(ic, [], { controlNumber: 5, ourIdentity: US, date: DATE, ta1: { code: 'R', noteCode: '021' } });
    const out = clean(answer?.x12 ?? '');
    expect([out.groups.length, out.iea]).toEqual([0, ['0', '000000005']]);
  });

  it('answers 40,000 one-set groups with one interchange of one FA group', async () => {
    const groups = Array.from({ length: 40_000 }, (_, i) => ({ control: String(i + 1), version: '004010', sets: [set850('0001')] }));
    const { ic, issues } = read(interchange('00401', groups));
    const verdicts = assess997(ic, issues);
    const answer = await write997Interchange(ic, verdicts, { controlNumber: 1, ourIdentity: US, date: DATE });
    expect(answer?.groups.length).toBe(40_000);
    const out = clean(answer?.x12 ?? '');
    expect(out.groups.length).toBe(1);
    expect(out.groups[0]?.transactionSets.length).toBe(40_000);
    expect(out.groups[0]?.transactionSets.at(-1)?.controlNumber).toBe('40000');
    expect((answer?.x12.match(/ISA\*/g) ?? []).length).toBe(1);
  });
});

describe('validation level', () => {
  // REF02/REF03 both missing (R0203; REF is not read) is tolerated; BEG01 99 (read) never is.
  const tolerable = set850('0001', ['BEG*00*SA*PO-1**20240115', 'REF*DP', 'N1*ST*STORE 1', 'PO1*1*4*EA*89.99**VP*TIRE-225']);
  const fatal = set850('0002', ['BEG*99*SA*PO-2**20240115', 'N1*ST*STORE 1', 'PO1*1*4*EA*89.99**VP*TIRE-225']);

  it('names what lenient tolerates, and only on elements the gateway does not read', () => {
    expect(LENIENT_TOLERATES.map((t) => t.code)).toEqual(['AK403:2', 'AK403:10', 'AK403:7']);
    const base = { level: 'element' as const, message: '' };
    expect(tolerated({ ...base, code: 'AK403:2', segmentId: 'REF', element: 2 })).toBe(true);
    expect(tolerated({ ...base, code: 'AK403:7', segmentId: 'DTM', element: 1 })).toBe(true);
    expect(tolerated({ ...base, code: 'AK403:7', segmentId: 'BEG', element: 1 })).toBe(false);
    expect(tolerated({ ...base, code: 'AK403:2', segmentId: 'PO1', element: 3 })).toBe(false);
    expect(tolerated({ ...base, code: 'AK403:1', segmentId: 'REF', element: 1 })).toBe(false);
    expect(tolerated({ ...base, level: 'segment', code: 'AK304:3', segmentId: 'REF' })).toBe(false);
  });

  it.each([
    ['strict', [false], 'R', ['AK3*REF*3**8', 'AK4*2*127*2', 'AK5*R*5'], 'AK9*R*1*1*0'],
    ['lenient', [true], 'E', ['AK3*REF*3**8', 'AK4*2*127*2', 'AK5*E*5'], 'AK9*E*1*1*1'],
  ] as const)('%s: a set whose only findings are tolerable', (level, accepted, code, ak, ak9) => {
    for (const version of ['004010', '005010']) {
      const { ic, issues } = read(interchange('00401', [{ control: '3', version, sets: [tolerable] }]));
      const verdicts = assess997(ic, issues, { level });
      expect(verdicts[0]?.sets.map((s) => s.accepted)).toEqual(accepted);
      expect(verdicts[0]?.sets[0]?.withErrors).toBe(level === 'lenient');
      expect(verdicts[0]?.code).toBe(code);
      expect(ackCodes('715', version)).toContain(code);
      expect(ackCodes('717', version)).toContain(level === 'lenient' ? 'E' : 'R');
      const [ack] = build997(ic, issues, { nextControlNumbers: () => ({ interchange: 1, group: 1 }), ourIdentity: US, date: DATE, level });
      const body = lines(clean(ack?.x12 ?? ''));
      expect(body.slice(2, -1).map((l) => l.replace('*005010', ''))).toEqual(ak);
      expect(body.at(-1)).toBe(ak9);
    }
  });

  it('lenient: a finding on an element the gateway reads still rejects, and the group is P', async () => {
    const { ic, issues } = read(interchange('00401', [{ control: '4', version: '004010', sets: [tolerable, fatal] }]));
    const verdicts = assess997(ic, issues, { level: 'lenient' });
    expect(verdicts[0]?.sets.map((s) => [s.accepted, s.withErrors])).toEqual([
      [true, true],
      [false, false],
    ]);
    const answer = await write997Interchange(ic, verdicts, { controlNumber: 9, ourIdentity: US, date: DATE });
    expect(lines(clean(answer?.x12 ?? ''))).toEqual(['AK1*PO*4', 'AK2*850*0001', 'AK3*REF*3**8', 'AK4*2*127*2', 'AK5*E*5', 'AK2*850*0002', 'AK3*BEG*2**8', 'AK4*1*353*7*99', 'AK5*R*5', 'AK9*P*2*2*1']);
    expect(answer?.groups.map((g) => g.code)).toEqual(['P']);
  });
});
