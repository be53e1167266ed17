import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { build997 } from '../../../../src/modules/edi/x12/x12.ack997.js';
import { parseX12, validateInterchange } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Delimiters } from '../../../../src/modules/edi/x12/x12.types.js';
import { buildInterchange, type BuildGroup, type BuildInterchangeInput } from '../../../../src/modules/edi/x12/x12.writer.js';
import { ALL_FIXTURES, readFixture } from './x12.fixtures.js';

/** Printable ASCII that is neither a letter, a digit nor a space: every legal delimiter choice. */
const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];
const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
const ENVELOPE_IDS = new Set(['ISA', 'IEA', 'GS', 'GE', 'ST', 'SE']);

const version = fc.constantFrom<'00401' | '00501'>('00401', '00501');

/** Four distinct punctuation characters; the segment terminator is sometimes a newline instead. */
const delimiters = (v: '00401' | '00501'): fc.Arbitrary<Delimiters> =>
  fc.tuple(fc.shuffledSubarray(PUNCTUATION, { minLength: 4, maxLength: 4 }), fc.boolean()).map(([[element = '*', component = '>', repetition = '^', segment = '~'], newline]) => ({
    element,
    component,
    repetition: v === '00501' ? repetition : null,
    segment: newline ? '\n' : segment,
  }));

const text = (chars: readonly string[], min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...chars), { minLength: min, maxLength: max }).map((a) => a.join(''));

const segmentId = fc.stringMatching(/^[A-Z][A-Z0-9]{1,2}$/).filter((id) => !ENVELOPE_IDS.has(id));

/** Business content whose values avoid the chosen delimiters (anything else is a writer error by design). */
function content(v: '00401' | '00501', d: Delimiters): fc.Arbitrary<BuildInterchangeInput> {
  const used = new Set([d.element, d.component, d.segment, d.repetition]);
  const safe = [...ALNUM, ' ', ...PUNCTUATION.filter((c) => !used.has(c))];
  const segment = fc.tuple(segmentId, fc.array(text(safe, 0, 8), { maxLength: 6 })).map(([id, elements]) => [id, ...elements]);
  const set = fc.record({ id: fc.constantFrom('850', '855', '856', '810'), segments: fc.array(segment, { maxLength: 5 }) });
  const group = fc.record({
    functionalId: fc.constantFrom('PO', 'PR', 'SH', 'IN'),
    senderCode: text(ALNUM, 2, 15),
    receiverCode: text(ALNUM, 2, 15),
    sets: fc.array(set, { maxLength: 3 }),
  });
  return fc.record({ sender: text(ALNUM, 1, 15), receiver: text(ALNUM, 1, 15), groups: fc.array(group, { minLength: 1, maxLength: 3 }) }).map(
    (r): BuildInterchangeInput => ({
      sender: { qualifier: 'ZZ', id: r.sender },
      receiver: { qualifier: '01', id: r.receiver },
      controlNumber: 1234,
      date: new Date('2024-06-30T23:59:00Z'),
      version: v,
      usage: 'P',
      groups: r.groups.map(
        (g, gi): BuildGroup => ({
          ...g,
          controlNumber: gi + 1,
          version: v === '00501' ? '005010' : '004010',
          sets: g.sets.map((s, si) => ({ ...s, controlNumber: si + 1 })),
        }),
      ),
    }),
  );
}

const interchangeCase = version.chain((v) => delimiters(v).chain((d) => fc.tuple(fc.constant(d), content(v, d), fc.boolean())));

/** X12 never carries trailing empty elements, so the writer drops them. */
function withoutTrailingEmpties(segment: readonly string[]): string[] {
  const out = [...segment];
  while (out.length > 1 && out[out.length - 1] === '') out.pop();
  return out;
}

describe('X12 properties', () => {
  it('parse(write(x)) reproduces the structure for any delimiters and safe contents', () => {
    fc.assert(
      fc.property(interchangeCase, ([d, spec, newline]) => {
        const result = parseX12(buildInterchange(spec, d, { newline }));
        if (!result.ok) throw new Error(JSON.stringify(result.issues));
        expect(result.issues).toEqual([]);
        const ic = result.interchange;
        expect(ic.delimiters).toEqual(d);
        expect([ic.senderId, ic.receiverId, ic.controlNumber, ic.version]).toEqual([spec.sender.id, spec.receiver.id, '000001234', spec.version]);
        expect(
          ic.groups.map((g) => ({
            functionalId: g.functionalId,
            senderCode: g.gs[1],
            receiverCode: g.gs[2],
            sets: g.transactionSets.map((s) => ({ id: s.id, segments: s.segments.slice(1, -1).map((x) => [x.id, ...x.elements]) })),
          })),
        ).toEqual(
          spec.groups.map((g) => ({
            functionalId: g.functionalId,
            senderCode: g.senderCode,
            receiverCode: g.receiverCode,
            sets: g.sets.map((s) => ({ id: s.id, segments: s.segments.map((x) => withoutTrailingEmpties(x.map(String))) })),
          })),
        );
      }),
      { numRuns: 200 },
    );
  });

  const sources = [...ALL_FIXTURES.map(readFixture), readFixture('850-4010-single.x12').replaceAll('~\n', '~\r\n')];
  const noise = fc.oneof(
    fc.constantFrom('~', '*', '>', '^', '\n', '\r\n', '\r', 'ISA', 'IEA*1*', 'SE*', 'ST*850*1~', 'GE*', 'GS*', '\uFEFF', ' ', ''),
    fc.string({ maxLength: 6 }),
  );
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: noise }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 1 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  );

  it('a group whose GS08 names no release the gateway takes is answered under the ISA12 release (found by the property below)', () => {
    const inbound = [
      'ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *240115*1030*U*00401*000001111*0*P*>~',
      'GS*PO*BUYERCO*TIREGW*20240115*1030*1*X*000001~',
      'ST*850*0001~',
      'BEG*00*SA*PO-1111**20240115~',
      'SE*3*0001~',
      'GE*1*1~',
      'IEA*1*000001111~',
    ].join('\n');
    const result = parseX12(inbound);
    const ic = result.ok ? result.interchange : result.envelope;
    if (ic === undefined) throw new Error('unreadable');
    const [ack] = build997(ic, [...result.issues, ...validateInterchange(ic)], { nextControlNumbers: () => ({ interchange: 1, group: 1 }), ourIdentity: { qualifier: 'ZZ', id: 'TIREGATEWAY' }, date: new Date(0) });
    const back = parseX12(ack?.x12 ?? '');
    expect(back.issues).toEqual([]);
    expect(back.ok && back.interchange.groups[0]?.version).toBe('004010');
  });

  it('never throws on mutated interchanges, and any 997 it builds parses back cleanly', () => {
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.array(mutation, { minLength: 1, maxLength: 6 }), (source, mutations) => {
        let input = source;
        for (const m of mutations) {
          const at = input.length === 0 ? 0 : m.at % (input.length + 1);
          if (m.kind === 'delete') input = input.slice(0, at) + input.slice(at + m.length);
          else if (m.kind === 'insert') input = input.slice(0, at) + m.text + input.slice(at);
          else if (m.kind === 'replace') input = input.slice(0, at) + m.text + input.slice(at + 1);
          else input = input.slice(0, at);
        }
        const result = parseX12(input);
        expect(typeof result.ok).toBe('boolean');
        expect(Array.isArray(result.issues)).toBe(true);
        if (!result.ok) expect(result.issues.length).toBeGreaterThan(0);
        const inbound = result.ok ? result.interchange : result.envelope;
        if (inbound === undefined) return;
        const issues = [...result.issues, ...validateInterchange(inbound)];
        let n = 0;
        const acks = build997(inbound, issues, { nextControlNumbers: () => ({ interchange: ++n, group: n }), ourIdentity: { qualifier: 'ZZ', id: 'TIREGATEWAY' }, date: new Date(0) });
        for (const ack of acks) {
          const back = parseX12(ack.x12);
          expect(back.ok).toBe(true);
          expect(back.issues).toEqual([]);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
