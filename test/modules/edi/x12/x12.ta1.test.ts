import { describe, expect, it } from 'vitest';
import { parseX12 } from '../../../../src/modules/edi/x12/x12.parser.js';
import { buildTa1, TA1_NOTES, ta1Verdict, type Ta1Input } from '../../../../src/modules/edi/x12/x12.ta1.js';
import type { Delimiters } from '../../../../src/modules/edi/x12/x12.types.js';
import { readFixture } from './x12.fixtures.js';

const OUR = { qualifier: 'ZZ', id: 'TIREGATEWAY' };
const DATE = new Date('2024-03-05T14:07:00Z');

function isaOf(text: string): string[] {
  const result = parseX12(text);
  const isa = result.ok ? result.interchange.isa : result.envelope?.isa;
  if (isa === undefined) throw new Error('no ISA');
  return isa;
}

/** Parses a TA1 interchange back with the library's parser: its ISA, IEA, delimiters and the segments between them. */
function readBack(x12: string): { isa: string[]; iea: string[] | undefined; d: Delimiters; body: string[][] } {
  const result = parseX12(x12);
  const envelope = result.ok ? result.interchange : result.envelope;
  if (envelope === undefined) throw new Error(JSON.stringify(result.issues));
  // A TA1 sits outside any group; whatever the parser says about the interchange, it may only be about that segment.
  expect(result.issues.filter((i) => i.segmentId !== 'TA1')).toEqual([]);
  const d = envelope.delimiters;
  const segments = x12.split(d.segment).map((s) => s.trim()).filter((s) => s !== '');
  const body = segments.slice(1, -1).map((s) => s.split(d.element));
  return { isa: envelope.isa, iea: envelope.iea, d, body };
}

function input(overrides: Partial<Ta1Input> = {}): Ta1Input {
  return {
    isa: isaOf(readFixture('850-4010-single.x12')),
    code: 'A',
    noteCode: TA1_NOTES.noError,
    controlNumber: 42,
    ourIdentity: OUR,
    date: DATE,
    ...overrides,
  };
}

describe('buildTa1', () => {
  it('acknowledges an interchange in its own ISA/IEA envelope, addressed back to the sender', () => {
    const x12 = buildTa1(input());
    const { isa, iea, body } = readBack(x12);
    expect(body).toEqual([['TA1', '000000101', '240115', '1030', 'A', '000']]);
    expect(isa.slice(4, 8).map((v) => v.trim())).toEqual(['ZZ', 'TIREGATEWAY', 'ZZ', 'BUYERCO']);
    expect(isa.slice(8, 15)).toEqual(['240305', '1407', 'U', '00401', '000000042', '0', 'P']);
    expect(iea).toEqual(['0', '000000042']);
    expect(x12.split('\n')[1]).toBe('TA1*000000101*240115*1030*A*000~');
  });

  it('rejects with the note code X12 gives the error (ISA13/IEA02 mismatch -> 001)', () => {
    const text = readFixture('control-mismatch.x12');
    const parsed = parseX12(text);
    const verdict = ta1Verdict(parsed.issues);
    expect(verdict).toEqual({ code: 'R', noteCode: TA1_NOTES.controlNumberMismatch });
    if (verdict === undefined) return;
    const { body } = readBack(buildTa1(input({ isa: isaOf(text), ...verdict })));
    expect(body[0]?.slice(4)).toEqual(['R', '001']);
  });

  it.each([
    ['isa-length.x12', TA1_NOTES.invalidControlStructure],
    ['truncated-body.x12', TA1_NOTES.prematureEnd],
    ['ge-iea-counts-wrong.x12', TA1_NOTES.invalidGroupCount],
  ])('%s gives R %s', (name, note) => {
    expect(ta1Verdict(parseX12(readFixture(name)).issues)).toEqual({ code: 'R', noteCode: note });
  });

  it('accepts (A 000) an interchange whose envelope is sound, and has nothing to say to text that is not X12', () => {
    expect(ta1Verdict(parseX12(readFixture('850-5010-multi.x12')).issues)).toEqual({ code: 'A', noteCode: '000' });
    expect(ta1Verdict(parseX12('hello').issues)).toBeUndefined();
  });

  it('answers in the version of the inbound ISA: 00501 with a repetition separator, 00306 without', () => {
    const x5010 = buildTa1(input({ isa: isaOf(readFixture('850-5010-multi.x12')) }));
    const back = readBack(x5010);
    expect(back.isa.slice(10, 12)).toEqual(['^', '00501']);
    expect(back.isa[14]).toBe('T');
    expect(back.body).toEqual([['TA1', '000000202', '240301', '0915', 'A', '000']]);
    const old = isaOf(readFixture('850-4010-single.x12'));
    old[11] = '00306';
    expect(readBack(buildTa1(input({ isa: old }))).isa.slice(10, 12)).toEqual(['U', '00306']);
    old[11] = '99999';
    expect(readBack(buildTa1(input({ isa: old }))).isa[11]).toBe('00401');
  });

  it('echoes nothing unsafe: bad control number, date and time are replaced, binary bytes dropped, delimiters swapped', () => {
    const isa = isaOf(readFixture('850-4010-single.x12'));
    isa[5] = 'BUY*ER\u0001~CO\u00ff     ';
    isa[8] = '24011';
    isa[9] = 'xx';
    isa[12] = '12345678X';
    const x12 = buildTa1(input({ isa, code: 'R', noteCode: TA1_NOTES.invalidControlNumber }));
    expect(x12).not.toMatch(/[^\x20-\x7E\n]/);
    const { isa: back, body, d } = readBack(x12);
    // Like the 997, spare delimiters are chosen when an echoed id holds one of the usual ones.
    expect(back[7]?.trim()).toBe('BUY*ER ~CO');
    expect(d.element).not.toBe('*');
    expect(d.segment).not.toBe('~');
    expect(body).toEqual([['TA1', '000000000', '240305', '1407', 'R', '018']]);
  });

  it('refuses a note code that is not three digits and a control number out of range', () => {
    expect(() => buildTa1(input({ noteCode: '1' }))).toThrow();
    expect(() => buildTa1(input({ controlNumber: 0 }))).toThrow();
    expect(() => buildTa1(input({ controlNumber: 1_000_000_000 }))).toThrow();
  });

  it('writes with caller delimiters without line breaks', () => {
    const x12 = buildTa1(input({ delimiters: { element: '|', component: ':', repetition: null, segment: '\'' } }));
    expect(x12).not.toContain('\n');
    expect(x12.split('\'')[1]).toBe('TA1|000000101|240115|1030|A|000');
    expect(readBack(x12).body).toHaveLength(1);
  });
});
