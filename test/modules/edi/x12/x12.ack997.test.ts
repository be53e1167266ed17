import { describe, expect, it } from 'vitest';
import { assess997, build997, type Ack997 } from '../../../../src/modules/edi/x12/x12.ack997.js';
import { parseX12, validateInterchange } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Interchange, PartialInterchange } from '../../../../src/modules/edi/x12/x12.types.js';
import { readAck } from './x12.ack-checks.js';
import { ISA_4010, readFixture } from './x12.fixtures.js';

const US = { qualifier: 'ZZ', id: 'TIREGATEWAY' };
const DATE = new Date('2024-02-01T12:34:00Z');

/** Parses, validates and acknowledges an inbound interchange; control numbers count up from 500 / 900. */
function acknowledge(text: string): { acks: Ack997[]; inbound: PartialInterchange; calls: number } {
  const result = parseX12(text);
  const inbound = result.ok ? result.interchange : result.envelope;
  if (inbound === undefined) throw new Error('nothing to acknowledge');
  let calls = 0;
  const acks = build997(inbound, [...result.issues, ...validateInterchange(inbound)], {
    nextControlNumbers: () => {
      calls++;
      return { interchange: 500 + calls, group: 900 + calls };
    },
    ourIdentity: US,
    date: DATE,
  });
  return { acks, inbound, calls };
}

/** A 997 read back (clean and valid), its body as element-joined lines. */
function readBack(ack: Ack997 | undefined): { ic: Interchange; body: string[] } {
  const { ic, segments } = readAck(ack);
  return { ic, body: segments.map((s) => s.join(ic.delimiters.element)) };
}

describe('build997', () => {
  it('accepts a clean 004010 850 in an interchange addressed back to the sender', () => {
    const { acks } = acknowledge(readFixture('850-4010-single.x12'));
    expect(acks.map((a) => [a.groupControlNumber, a.code, a.interchangeControlNumber])).toEqual([['101', 'A', 501]]);
    const { ic, body } = readBack(acks[0]);
    expect(body).toEqual(['AK1*PO*101', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
    expect(ic).toMatchObject({ senderQualifier: 'ZZ', senderId: 'TIREGATEWAY', receiverQualifier: 'ZZ', receiverId: 'BUYERCO', controlNumber: '000000501', version: '00401', usage: 'P' });
    expect(ic.groups[0]).toMatchObject({ functionalId: 'FA', controlNumber: '901', version: '004010' });
    expect(ic.groups[0]?.gs.slice(1, 5)).toEqual(['TIREGW', 'BUYERCO', '20240201', '1234']);
    expect(ic.groups[0]?.transactionSets[0]).toMatchObject({ id: '997', controlNumber: '0001', se: ['6', '0001'] });
    expect(ic.groups[0]?.ge).toEqual(['1', '901']);
    expect(ic.iea).toEqual(['1', '000000501']);
  });

  it('acknowledges 005010 with GS08 in AK1, ST03 in AK2 and the test usage flag', () => {
    const { acks } = acknowledge(readFixture('850-5010-multi.x12'));
    const { ic, body } = readBack(acks[0]);
    expect(body).toEqual([
      'AK1*PO*202*005010',
      'AK2*850*1001*005010',
      'AK5*A',
      'AK2*850*1002*005010',
      'AK5*A',
      'AK2*850*1003*005010',
      'AK5*A',
      'AK9*A*3*3*3',
    ]);
    expect(ic).toMatchObject({ version: '00501', usage: 'T', receiverQualifier: '01', receiverId: '123456789' });
    expect(ic.delimiters.repetition).toBe('^');
    expect(ic.groups[0]?.version).toBe('005010');
  });

  it('writes one 997 per group and none for an inbound 997 group', () => {
    const { acks, calls } = acknowledge(readFixture('850-multi-group.x12'));
    expect(calls).toBe(2);
    expect(acks.map((a) => [a.groupControlNumber, a.code, a.interchangeControlNumber])).toEqual([
      ['31', 'A', 501],
      ['32', 'A', 502],
    ]);
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*31', 'AK2*850*0001', 'AK5*A', 'AK2*850*0002', 'AK5*A', 'AK9*A*2*2*2']);
    expect(readBack(acks[1]).body).toEqual(['AK1*PO*32', 'AK2*850*0003', 'AK5*A', 'AK9*A*1*1*1']);
    expect(readBack(acks[1]).ic.groups[0]?.controlNumber).toBe('902');
  });

  it.each([
    ['newline-terminator.x12', ['AK1*PO*404', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']],
    ['unusual-delimiters.x12', ['AK1*PO*505', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']],
  ])('acknowledges %s in our own delimiters', (name, expected) => {
    const { acks } = acknowledge(readFixture(name));
    const { ic, body } = readBack(acks[0]);
    expect(body).toEqual(expected);
    expect(ic.delimiters).toEqual({ element: '*', component: '>', repetition: null, segment: '~' });
  });

  it('rejects a set whose SE01 is wrong and partially accepts the group', () => {
    const { acks } = acknowledge(readFixture('se-count-wrong.x12'));
    expect(acks[0]?.code).toBe('P');
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*606', 'AK2*850*0001', 'AK5*R*4', 'AK2*850*0002', 'AK5*A', 'AK9*P*2*2*1']);
  });

  it('rejects the group when GE01 is wrong, reporting what GE01 claimed', () => {
    const { acks } = acknowledge(readFixture('ge-iea-counts-wrong.x12'));
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*707', 'AK2*850*0001', 'AK5*R', 'AK9*R*3*1*0*5']);
  });

  it('reports control number mismatches in AK5 and AK9', () => {
    const { acks } = acknowledge(readFixture('control-mismatch.x12'));
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*808', 'AK2*850*0001', 'AK5*R*3', 'AK9*R*1*1*0*4']);
  });

  it('reports a missing BEG with AK3 code 3 at its position in the set', () => {
    const { acks } = acknowledge(readFixture('missing-beg.x12'));
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*909', 'AK2*850*0001', 'AK3*BEG*2**3', 'AK5*R*5', 'AK9*R*1*1*0']);
  });

  it('reports unknown segments and element errors with AK3/AK4 detail', () => {
    const { acks } = acknowledge(readFixture('unknown-segment.x12'));
    expect(readBack(acks[0]).body).toEqual([
      'AK1*PO*1010',
      'AK2*850*0001',
      'AK3*BEG*2**8',
      'AK4*1*353*7*99',
      'AK4*5*373*8*20240231',
      'AK3*ZZZ*3**1',
      'AK3*BIG*4**6',
      'AK3*DTM*6*PO1*8',
      'AK4*2*373*4*2024013',
      'AK3*CTT*7*CTT*8',
      'AK4*1*354*6*x',
      'AK3*REF*8**7',
      'AK5*R*5',
      'AK9*R*1*1*0',
    ]);
  });

  it('rejects the group for a segment outside any set', () => {
    const { acks } = acknowledge(readFixture('stray-segment.x12'));
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*1212', 'AK2*850*0001', 'AK5*R', 'AK2*850*0002', 'AK5*R', 'AK9*R*2*2*0*1']);
  });

  it('acknowledges what a truncated interchange contained', () => {
    const { acks } = acknowledge(readFixture('truncated-body.x12'));
    expect(readBack(acks[0]).body).toEqual(['AK1*PO*1111', 'AK2*850*0001', 'AK5*R', 'AK2*850*0002', 'AK5*R*2', 'AK9*R*2*2*0*3']);
  });

  it('switches to a spare delimiter when an echoed inbound value contains ours, and drops an unsafe AK404 copy', () => {
    // Inbound: | between elements, newline between segments; GS02 contains our * and BEG05 our ~.
    const text = [
      ISA_4010.replaceAll('*', '|').replace(/~$/, ''),
      'GS|PO|BUYER*CO|TIREGW|20240115|1030|77|X|004010',
      'ST|850|0001',
      'BEG|00|SA|PO-1||2024~101',
      'PO1|1|1|EA|1',
      'SE|4|0001',
      'GE|1|77',
      'IEA|1|000000101',
    ].join('\n');
    const { acks } = acknowledge(text);
    const { ic, body } = readBack(acks[0]);
    expect(ic.delimiters.element).not.toBe('*');
    expect(ic.groups[0]?.gs[2]).toBe('BUYER*CO');
    const e = ic.delimiters.element;
    expect(body).toEqual([`AK1${e}PO${e}77`, `AK2${e}850${e}0001`, `AK3${e}BEG${e}2${e}${e}8`, `AK4${e}5${e}373${e}8`, `AK5${e}R${e}5`, `AK9${e}R${e}1${e}1${e}0`]);
  });

  it('uses the delimiters the caller asks for', () => {
    const result = parseX12(readFixture('850-4010-single.x12'));
    if (!result.ok) throw new Error('fixture');
    const [ack] = build997(result.interchange, result.issues, {
      nextControlNumbers: () => ({ interchange: 1, group: 1 }),
      ourIdentity: US,
      date: DATE,
      delimiters: { element: '|', component: '\\', repetition: null, segment: '!' },
    });
    expect(ack?.x12).not.toContain('\n');
    expect(readBack(ack).ic.delimiters).toEqual({ element: '|', component: '\\', repetition: null, segment: '!' });
  });
});

describe('assess997', () => {
  it('gives the verdicts the 997s carry, per group and set, without writing them', () => {
    for (const name of ['se-count-wrong.x12', '850-multi-group.x12', 'ge-iea-counts-wrong.x12', 'missing-beg.x12']) {
      const { acks, inbound } = acknowledge(readFixture(name));
      const result = parseX12(readFixture(name));
      const verdicts = assess997(inbound, [...result.issues, ...validateInterchange(inbound)]);
      expect(verdicts.map((v) => [v.group.controlNumber, v.code]), name).toEqual(acks.map((a) => [a.groupControlNumber, a.code]));
      for (const [i, verdict] of verdicts.entries()) {
        const body = readBack(acks[i]).body;
        const ak5 = body.filter((line) => line.startsWith('AK5*')).map((line) => line.startsWith('AK5*A') && verdict.code !== 'R');
        expect(verdict.sets.map((s) => s.accepted), name).toEqual(ak5);
      }
    }
  });

  it('accepts no set of a group with a group-level finding', () => {
    const result = parseX12(readFixture('ge-iea-counts-wrong.x12'));
    const inbound = result.ok ? result.interchange : result.envelope;
    if (inbound === undefined) throw new Error('envelope unreadable');
    const [verdict] = assess997(inbound, result.issues);
    expect(verdict?.issues.map((i) => i.code)).toEqual(['AK905:5']);
    expect(verdict?.sets.map((s) => s.accepted)).toEqual([false]);
  });
});
