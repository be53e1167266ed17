import { describe, expect, it } from 'vitest';
import { assess997, build997 } from '../../../../src/modules/edi/x12/x12.ack997.js';
import { parseX12, validateInterchange } from '../../../../src/modules/edi/x12/x12.parser.js';
import { readAck } from './x12.ack-checks.js';
import { ISA_4010 } from './x12.fixtures.js';

const US = { qualifier: 'ZZ', id: 'TIREGATEWAY' };
const DATE = new Date('2024-02-01T12:34:00Z');

const set850 = (control: string, po: string): string[] => [
  `ST*850*${control}`,
  `BEG*00*SA*${po}**20240115`,
  'N1*ST*STORE 1',
  'PO1*1*4*EA*89.99**VP*TIRE-225',
  'CTT*1',
  `SE*6*${control}`,
];

function interchange(groups: { control: string; sets: string[][] }[]): string {
  const body = groups.flatMap((g) => [`GS*PO*BUYERCO*TIREGW*20240115*1030*${g.control}*X*004010`, ...g.sets.flat(), `GE*${g.sets.length}*${g.control}`]);
  return [ISA_4010, ...body.map((s) => `${s}~`), `IEA*${groups.length}*000000101~`].join('\n');
}

function judge(text: string) {
  const parsed = parseX12(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const issues = [...parsed.issues, ...validateInterchange(parsed.interchange)];
  let n = 0;
  const acks = build997(parsed.interchange, issues, { nextControlNumbers: () => ({ interchange: ++n, group: n }), ourIdentity: US, date: DATE });
  return { verdicts: assess997(parsed.interchange, issues), acks, interchange: parsed.interchange };
}

const body = (x12: string): string[] => readAck({ groupControlNumber: '', code: 'A', interchangeControlNumber: 1, x12 }).segments.map((s) => s.join('*'));

describe('a reused control number is the later set or group, never the first', () => {
  it.each([
    ['second of two', [set850('0001', 'PO-A'), set850('0001', 'PO-B')], [true, false]],
    ['third of three, between others', [set850('0001', 'PO-A'), set850('0002', 'PO-B'), set850('0001', 'PO-C')], [true, true, false]],
    ['second and third reuse the first', [set850('0007', 'PO-A'), set850('0007', 'PO-B'), set850('0007', 'PO-C')], [true, false, false]],
  ])('ST02 reused within a group: %s', (_name, sets, accepted) => {
    const { verdicts, acks } = judge(interchange([{ control: '55', sets }]));
    expect(verdicts[0]?.sets.map((s) => s.accepted)).toEqual(accepted);
    for (const [i, s] of (verdicts[0]?.sets ?? []).entries()) {
      expect(s.issues.map((x) => x.code)).toEqual(accepted[i] === true ? [] : ['AK502:23']);
    }
    const ak5 = body(acks[0]?.x12 ?? '').filter((s) => s.startsWith('AK5'));
    expect(ak5).toEqual(accepted.map((a) => (a ? 'AK5*A' : 'AK5*R*23')));
  });

  it('the first 850 is accepted and the reusing one is refused in the 997 text', () => {
    const { acks } = judge(interchange([{ control: '55', sets: [set850('0001', 'PO-A'), set850('0001', 'PO-B')] }]));
    expect(body(acks[0]?.x12 ?? '')).toEqual(['AK1*PO*55', 'AK2*850*0001', 'AK5*A', 'AK2*850*0001', 'AK5*R*23', 'AK9*P*2*2*1']);
  });

  it('GS06 reused within an interchange: the first group is processed, the later one rejected', () => {
    const { verdicts } = judge(
      interchange([
        { control: '55', sets: [set850('0001', 'PO-A')] },
        { control: '56', sets: [set850('0001', 'PO-B')] },
        { control: '55', sets: [set850('0001', 'PO-C')] },
      ]),
    );
    expect(verdicts.map((v) => [v.group.controlNumber, v.code, v.issues.map((i) => i.code), v.sets.map((s) => s.accepted)])).toEqual([
      ['55', 'A', [], [true]],
      ['56', 'A', [], [true]],
      ['55', 'R', ['AK905:19'], [false]],
    ]);
  });
});
