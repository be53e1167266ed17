import { describe, expect, it } from 'vitest';
import { parseX12, validateInterchange } from '../../../../src/modules/edi/x12/x12.parser.js';
import { readFixture } from './x12.fixtures.js';

/** The interchange as one line (segments end in '~' only), wrapped every `width` characters with `eol`. */
export function wrap(text: string, width: number, eol: string): string {
  const flat = text.replace(/~\r?\n/g, '~');
  const lines: string[] = [];
  for (let i = 0; i < flat.length; i += width) lines.push(flat.slice(i, i + width));
  return lines.join(eol) + eol;
}

const cases = [
  ['850-4010-single.x12', 80, '\r\n'],
  ['850-4010-single.x12', 80, '\n'],
  ['850-5010-multi.x12', 132, '\r\n'],
  ['850-5010-multi.x12', 132, '\n'],
  ['850-multi-group.x12', 80, '\r\n'],
  ['unusual-delimiters.x12', 80, '\n'],
] as const;

describe('files wrapped at 80 or 132 columns', () => {
  it.each(cases)('%s wrapped at %i with %j reads as the unwrapped file does', (name, width, eol) => {
    const plain = parseX12(readFixture(name));
    const wrapped = parseX12(wrap(readFixture(name), width, eol));
    if (!plain.ok || !wrapped.ok) throw new Error(JSON.stringify(wrapped.issues));
    expect(wrapped.issues).toEqual([]);
    expect(validateInterchange(wrapped.interchange)).toEqual([]);
    expect(wrapped.interchange.isa).toEqual(plain.interchange.isa);
    expect(wrapped.interchange.delimiters).toEqual(plain.interchange.delimiters);
    const sets = (r: typeof plain) => (r.ok ? r.interchange.groups.flatMap((g) => g.transactionSets.map((s) => s.segments)) : []);
    expect(sets(wrapped)).toEqual(sets(plain));
  });

  it('a break inside the ISA id, its separators or its padding is not data', () => {
    const text = readFixture('850-4010-single.x12');
    const end = text.indexOf('~');
    // A break right before the terminator is not here: an ISA ending in a line break has that break as its terminator.
    for (const at of [1, 2, 3, 4, 50, end - 2, end - 1]) {
      const broken = `${text.slice(0, at)}\r\n${text.slice(at)}`;
      const parsed = parseX12(broken);
      expect(parsed.ok, `break at ${at}: ${JSON.stringify(parsed.issues)}`).toBe(true);
      expect(parsed.issues).toEqual([]);
    }
  });

  it('a short ISA stays TA105 022 whether or not the file is wrapped', () => {
    const text = readFixture('850-4010-single.x12').replace('*00*          *', '*00*         *');
    for (const input of [text, wrap(text, 80, '\r\n')]) {
      const parsed = parseX12(input);
      expect(parsed.ok).toBe(false);
      expect(parsed.issues.map((i) => i.code)).toContain('TA105:022');
    }
  });

  it('with a newline terminator, line breaks stay the terminator', () => {
    const parsed = parseX12(readFixture('newline-terminator.x12'));
    expect(parsed.ok).toBe(true);
    expect(parsed.issues).toEqual([]);
  });

  it.each([80, 132])('several wrapped interchanges in one body: each next points at its own ISA in the raw text (%i columns)', (width) => {
    const one = readFixture('850-4010-single.x12');
    const two = one.replaceAll('000000101', '000000102').replace('PO-1001', 'PO-1002');
    // Wrapped together, so an ISA starts mid-line and a break may fall inside its letters.
    const body = wrap(one + two + one.replaceAll('000000101', '000000103'), width, '\r\n');
    const found: { control: string; start: number }[] = [];
    let at: number | undefined = 0;
    while (at !== undefined) {
      const parsed = parseX12(body, at);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      expect(parsed.issues).toEqual([]);
      found.push({ control: parsed.interchange.controlNumber, start: at });
      at = parsed.next;
    }
    expect(found.map((f) => f.control)).toEqual(['000000101', '000000102', '000000103']);
    for (const { start } of found.slice(1)) expect(body.slice(start).replace(/[\r\n]/g, '').startsWith('ISA*')).toBe(true);
  });
});
