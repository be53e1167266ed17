import { describe, expect, it } from 'vitest';
import { parseX12 } from '../../../../src/modules/edi/x12/x12.parser.js';
import type { Delimiters, Interchange } from '../../../../src/modules/edi/x12/x12.types.js';
import { buildInterchange, writeX12, type BuildInterchangeInput, type InterchangeInput, type X12Value } from '../../../../src/modules/edi/x12/x12.writer.js';
import { readFixture } from './x12.fixtures.js';

const DATE = new Date('2024-03-05T07:08:00Z');

function spec(version: '00401' | '00501', overrides: Partial<BuildInterchangeInput> = {}): BuildInterchangeInput {
  return {
    sender: { qualifier: 'ZZ', id: 'TIREGATEWAY' },
    receiver: { qualifier: '01', id: '123456789' },
    controlNumber: 42,
    date: DATE,
    version,
    usage: 'T',
    groups: [
      {
        functionalId: 'PR',
        senderCode: 'TIREGW',
        receiverCode: 'DEALERNET',
        controlNumber: 7,
        version: version === '00501' ? '005010' : '004010',
        sets: [
          { id: '855', controlNumber: 1, segments: [['BAK', '00', 'AC', 'PO-1', '20240305'], ['PO1', '1', '4', 'EA', '89.99', '', 'VP', 'TIRE']] },
          { id: '855', controlNumber: 2, segments: [['BAK', '00', 'RJ', 'PO-2', '20240305']] },
        ],
      },
    ],
    ...overrides,
  };
}

function parsed(text: string): Interchange {
  const result = parseX12(text);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  expect(result.issues).toEqual([]);
  return result.interchange;
}

/** The writer's input for an interchange that was parsed, so it can be written again (composites become arrays). */
function toInput(ic: Interchange): InterchangeInput {
  const { component } = ic.delimiters;
  const value = (v: string): X12Value => (v.includes(component) ? v.split(component) : v);
  return {
    isa: ic.isa.map((v) => v.trimEnd()),
    groups: ic.groups.map((g) => ({
      gs: g.gs,
      sets: g.transactionSets.map((s) => ({ st: s.st, segments: s.segments.slice(1, -1).map((x) => [x.id, ...x.elements.map(value)]) })),
    })),
  };
}

describe('buildInterchange', () => {
  it('writes a 00501 interchange with default delimiters, fixed-width ISA and computed counts', () => {
    const text = buildInterchange(spec('00501'));
    const lines = text.split('\n');
    expect(lines[0]).toBe('ISA*00*          *00*          *ZZ*TIREGATEWAY    *01*123456789      *240305*0708*^*00501*000000042*0*T*>~');
    expect(lines[0]).toHaveLength(106);
    expect(lines.slice(1)).toEqual([
      'GS*PR*TIREGW*DEALERNET*20240305*0708*7*X*005010~',
      'ST*855*0001~',
      'BAK*00*AC*PO-1*20240305~',
      'PO1*1*4*EA*89.99**VP*TIRE~',
      'SE*4*0001~',
      'ST*855*0002~',
      'BAK*00*RJ*PO-2*20240305~',
      'SE*3*0002~',
      'GE*2*7~',
      'IEA*1*000000042~',
      '',
    ]);
    const ic = parsed(text);
    expect(ic.delimiters).toEqual({ element: '*', component: '>', repetition: '^', segment: '~' });
  });

  it('writes ISA11 U and no repetition separator for 00401', () => {
    const ic = parsed(buildInterchange(spec('00401')));
    expect(ic.isa[10]).toBe('U');
    expect(ic.delimiters.repetition).toBeNull();
  });

  it('uses the delimiters given, without newlines unless asked', () => {
    const d: Delimiters = { element: '|', component: '\\', repetition: '!', segment: '#' };
    const text = buildInterchange(spec('00501'), d);
    expect(text).not.toContain('\n');
    expect(parsed(text).delimiters).toEqual(d);
    expect(buildInterchange(spec('00501'), d, { newline: true }).split('\n')).toHaveLength(12);
  });

  it('writes ST03 for 005010 when given', () => {
    const input = spec('00501');
    const group = input.groups[0];
    if (group === undefined) throw new Error('no group');
    const text = buildInterchange({ ...input, groups: [{ ...group, sets: [{ id: '850', controlNumber: 9, implementationReference: '005010', segments: [] }] }] });
    expect(text).toContain('ST*850*0009*005010~');
    expect(text).toContain('SE*2*0009~');
  });

  it.each([
    ['an element separator in a value', { receiver: { qualifier: '01', id: 'A*B' } }],
    ['a segment terminator in a value', { sender: { qualifier: 'ZZ', id: 'A~B' } }],
    ['an ISA field longer than its width', { sender: { qualifier: 'ZZ', id: 'SIXTEEN-CHARS-XX' } }],
    ['a control number out of range', { controlNumber: 1_000_000_000 }],
  ])('throws for %s', (_name, overrides) => {
    expect(() => buildInterchange(spec('00501', overrides))).toThrow();
  });

  it('throws for a component separator or line break in a body value', () => {
    const input = spec('00401');
    const group = input.groups[0];
    if (group === undefined) throw new Error('no group');
    const withValue = (value: string): BuildInterchangeInput => ({ ...input, groups: [{ ...group, sets: [{ id: '855', controlNumber: 1, segments: [['BAK', value]] }] }] });
    expect(() => buildInterchange(withValue('A>B'))).toThrow(/delimiter/);
    expect(() => buildInterchange(withValue('A\nB'))).toThrow(/delimiter/);
    expect(() => buildInterchange(withValue('A-B'))).not.toThrow();
  });

  it('rejects unusable delimiter sets', () => {
    const base = { element: '*', component: '>', repetition: null, segment: '~' };
    expect(() => buildInterchange(spec('00401'), { ...base, element: 'A' })).toThrow();
    expect(() => buildInterchange(spec('00401'), { ...base, component: '*' })).toThrow();
    expect(() => buildInterchange(spec('00401'), { ...base, segment: ' ' })).toThrow();
    expect(() => buildInterchange(spec('00401'), { ...base, repetition: '^' })).toThrow(/repetition/);
    expect(() => buildInterchange(spec('00401'), { ...base, segment: '\n' })).not.toThrow();
  });
});

describe('writeX12', () => {
  it('joins composite values with the component separator', () => {
    const text = buildInterchange({
      ...spec('00401'),
      groups: [{ functionalId: 'PO', senderCode: 'A', receiverCode: 'B', controlNumber: 1, version: '004010', sets: [{ id: '850', controlNumber: 1, segments: [['PO1', '1', ['EA', 'X', ''], '']] }] }],
    });
    expect(text).toContain('PO1*1*EA>X~');
    expect(() => buildInterchange({ ...spec('00401'), groups: [{ functionalId: 'PO', senderCode: 'A', receiverCode: 'B', controlNumber: 1, version: '004010', sets: [{ id: '850', controlNumber: 1, segments: [['PO1', ['E>A']]] }] }] })).toThrow();
  });

  it('drops trailing empty elements and keeps inner ones', () => {
    const text = writeX12(
      {
        isa: ['00', '', '00', '', 'ZZ', 'A', 'ZZ', 'B', '240101', '0000', 'U', '00401', '1', '0', 'P', '>'],
        groups: [{ gs: ['PO', 'A', 'B', '20240101', '0000', '1', 'X', '004010'], sets: [{ st: ['850', '0001'], segments: [['BEG', '00', '', 'X', '', '']] }] }],
      },
      { element: '*', component: '>', repetition: null, segment: '~' },
    );
    expect(text).toContain('~BEG*00**X~');
    expect(text).toContain('*000000001*0*P*>~');
  });

  it.each(['850-4010-single.x12', '850-5010-multi.x12', '850-multi-group.x12', 'newline-terminator.x12', 'unusual-delimiters.x12'])(
    'rewrites %s to the same structure',
    (name) => {
      const original = parsed(readFixture(name));
      const again = parsed(writeX12(toInput(original), original.delimiters));
      expect(toInput(again)).toEqual(toInput(original));
      expect(again.isa).toEqual(original.isa);
    },
  );
});
