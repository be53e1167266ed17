import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertNoNul, findUnsafeText } from '../../../src/platform/core/nul-guard.js';
import { freeText, identifier } from '../../../src/platform/core/text-rules.js';

/** The refused ranges as the rules state them, kept apart from the implementation's pattern on purpose. */
const CONTROL: [number, number][] = [[0x00, 0x1f], [0x7f, 0x9f]];
const WHITESPACE: [number, number][] = [[0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000]];
/** Unicode's own property, as this Node knows it: the rule is "every default-ignorable code point". */
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
const BIDI_OVERRIDES: [number, number][] = [[0x202a, 0x202e], [0x2066, 0x2069]];
const INVISIBLE_IN_TEXT: [number, number][] = [
  [0x180e, 0x180e], [0x200b, 0x200b], [0x2060, 0x2065], [0x206a, 0x206f], [0xfeff, 0xfeff], [0xfff0, 0xfff8], [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe00ff], [0xe01f0, 0xe0fff],
];
const LINE_BREAKS: [number, number][] = [[0x0a, 0x0d], [0x85, 0x85], [0x2028, 0x2029]];
const inRanges = (ranges: [number, number][], cp: number) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
const ignorable = (cp: number) => IGNORABLE.test(String.fromCodePoint(cp));
const refusedInIdentifier = (cp: number) => inRanges(CONTROL, cp) || inRanges(WHITESPACE, cp) || ignorable(cp);
const refusedInText = (cp: number) => (inRanges(CONTROL, cp) && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || inRanges(BIDI_OVERRIDES, cp) || inRanges(INVISIBLE_IN_TEXT, cp);
const refusedInLine = (cp: number) => refusedInText(cp) || inRanges(LINE_BREAKS, cp);
const codePoints = (s: string) => [...s].map((ch) => ch.codePointAt(0) ?? 0);
const everyRefused = (ranges: [number, number][]) => ranges.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
const EVERY_IGNORABLE = Array.from({ length: 0x110000 }, (_, cp) => cp).filter((cp) => (cp < 0xd800 || cp > 0xdfff) && ignorable(cp));

const messages = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map((i) => i.message) ?? [];
const patternsOf = (schema: z.ZodType): string[] => {
  const json = JSON.stringify(z.toJSONSchema(schema));
  return [...json.matchAll(/"pattern":("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1] ?? '""') as string);
};

describe('identifier()', () => {
  const sku = identifier(64, 'sku');

  it('accepts ordinary identifiers, including slashes, accents and emoji', () => {
    for (const ok of ['ABC-123', 'PO/2026/001', 'Größe_17', 'x', '😀', 'a'.repeat(64)]) expect(sku.safeParse(ok).success, ok).toBe(true);
  });

  it('names the rule, the character and its position', () => {
    expect(messages(sku, 'AB\u202eC')).toEqual(['sku must not contain invisible or bidi-control characters (U+202E at position 3)']);
    expect(messages(sku, 'A B')).toEqual(['sku must not contain whitespace (U+0020 at position 2)']);
    expect(messages(sku, 'AB\u0007')).toEqual(['sku must not contain control characters (U+0007 at position 3)']);
    expect(messages(sku, '😀\u200b')).toEqual(['sku must not contain invisible or bidi-control characters (U+200B at position 2)']);
    expect(messages(sku, '')).toEqual(['sku must not be empty']);
    expect(messages(sku, 'a'.repeat(65))).toEqual(['sku must be at most 64 characters']);
  });

  it('refuses tag characters, variation selectors and Hangul fillers, naming them', () => {
    expect(messages(sku, 'AB\u{e0041}C')).toEqual(['sku must not contain invisible or bidi-control characters (U+E0041 at position 3)']);
    expect(messages(sku, 'A\ufe0f')).toEqual(['sku must not contain invisible or bidi-control characters (U+FE0F at position 2)']);
    expect(messages(sku, '\u3164')).toEqual(['sku must not contain invisible or bidi-control characters (U+3164 at position 1)']);
    expect(messages(sku, 'x\u{e0100}')).toEqual(['sku must not contain invisible or bidi-control characters (U+E0100 at position 2)']);
    expect(messages(sku, '\u{1d173}')).toEqual(['sku must not contain invisible or bidi-control characters (U+1D173 at position 1)']);
  });

  it('refuses every control, whitespace and default-ignorable code point', () => {
    expect(EVERY_IGNORABLE.length).toBeGreaterThan(4000);
    for (const cp of [...everyRefused(CONTROL), ...everyRefused(WHITESPACE), ...EVERY_IGNORABLE]) {
      expect(sku.safeParse(`A${String.fromCodePoint(cp)}B`).success, `U+${cp.toString(16)}`).toBe(false);
    }
  });

  it('accepts a string exactly when no character is refused (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), (s) => {
        expect(sku.safeParse(s).success).toBe(!codePoints(s).some(refusedInIdentifier) && s.length <= 64);
      }),
    );
  });

  it('reports the first refused character wherever it is inserted (property)', () => {
    const safe = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }).filter((s) => !codePoints(s).some(refusedInIdentifier));
    const bad = fc.constantFrom(...EVERY_IGNORABLE.filter((cp) => cp < 0x2100 || cp > 0xe0000), 0x00, 0x1b, 0x85, 0x20, 0x3000);
    fc.assert(
      fc.property(safe, bad, fc.nat(), (s, cp, at) => {
        const i = at % (s.length + 1);
        const [message] = messages(sku, `${s.slice(0, i)}${String.fromCodePoint(cp)}${s.slice(i)}`);
        expect(message).toContain(`(U+${cp.toString(16).toUpperCase().padStart(4, '0')} at position ${[...s.slice(0, i)].length + 1})`);
      }),
    );
  });
});

describe('freeText()', () => {
  const label = freeText(100, { what: 'label' });
  const notes = freeText(100, { what: 'notes', multiline: true });

  it('allows tab everywhere and line breaks only in multi-line text, refuses other control characters', () => {
    expect(notes.safeParse('line 1\r\nline 2\tend').success).toBe(true);
    expect(notes.safeParse('').success).toBe(true);
    expect(label.safeParse('North\tyard').success).toBe(true);
    expect(messages(label, 'North yard\nB-42  active')).toEqual(['label must not contain line breaks (U+000A at position 11)']);
    expect(messages(label, 'a\rb')).toEqual(['label must not contain line breaks (U+000D at position 2)']);
    expect(messages(label, 'a\u2028b')).toEqual(['label must not contain line breaks (U+2028 at position 2)']);
    expect(messages(label, 'a\u001b[2J')).toEqual(['label must not contain control characters other than tab (U+001B at position 2)']);
    expect(messages(notes, 'bell\u0007')).toEqual(['notes must not contain control characters other than tab, newline and carriage return (U+0007 at position 5)']);
    expect(messages(notes, 'x'.repeat(101))).toEqual(['notes must be at most 100 characters']);
  });

  it('refuses bidi overrides and isolates, keeps the marks right-to-left text needs', () => {
    expect(notes.safeParse('\u05e9\u05dc\u05d5\u05dd \u200f(1)').success).toBe(true);
    expect(messages(notes, 'abc\u202edef')).toEqual(['notes must not contain bidi overrides or isolates (U+202E at position 4)']);
    for (const cp of everyRefused(BIDI_OVERRIDES)) expect(messages(label, `a${String.fromCodePoint(cp)}`)[0], cp.toString(16)).toContain('bidi overrides or isolates');
  });

  it('refuses invisible characters (tag characters included), keeps ZWNJ and variation selectors', () => {
    expect(messages(label, 'hello\u{e0069}\u{e0067}')).toEqual(['label must not contain invisible characters (U+E0069 at position 6)']);
    expect(messages(label, 'a\u200bb')).toEqual(['label must not contain invisible characters (U+200B at position 2)']);
    expect(messages(label, '\ufeffa')).toEqual(['label must not contain invisible characters (U+FEFF at position 1)']);
    for (const cp of everyRefused(INVISIBLE_IN_TEXT)) expect(label.safeParse(`a${String.fromCodePoint(cp)}`).success, cp.toString(16)).toBe(false);
    expect(label.safeParse('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645').success).toBe(true);
    expect(label.safeParse('\u2764\ufe0f \u845b\u{e0100}').success).toBe(true);
  });

  it('takes a zero-width joiner only inside an emoji', () => {
    for (const ok of ['\u{1f468}\u200d\u{1f469}\u200d\u{1f467}', '\u{1f469}\u{1f3fd}\u200d\u{1f4bb}', '\u{1f3f3}\ufe0f\u200d\u{1f308}', 'team \u2764\ufe0f\u200d\u{1f525}!']) {
      expect(label.safeParse(ok).success, ok).toBe(true);
    }
    expect(messages(label, 'pay\u200dpal')).toEqual(['label must not contain a zero-width joiner outside an emoji (U+200D at position 4)']);
    expect(messages(label, '\u{1f600}\u200d')).toEqual(['label must not contain a zero-width joiner outside an emoji (U+200D at position 2)']);
    expect(messages(label, '\u200d\u{1f600}')).toEqual(['label must not contain a zero-width joiner outside an emoji (U+200D at position 1)']);
  });

  it('trims and enforces a minimum when asked', () => {
    const name = freeText(10, { min: 1, trim: true, what: 'name' });
    expect(name.parse('  Wheel  ')).toBe('Wheel');
    expect(messages(name, '   ')).toEqual(['name must not be empty']);
    expect(messages(freeText(10), 'a\u0000')).toEqual(['text must not contain control characters other than tab (U+0000 at position 2)']);
  });

  it('accepts a string exactly when no character is refused (property)', () => {
    const zwjFree = fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !s.includes('\u200d'));
    fc.assert(
      fc.property(zwjFree, (s) => {
        expect(notes.safeParse(s).success).toBe(!codePoints(s).some(refusedInText) && s.length <= 100);
        expect(label.safeParse(s).success).toBe(!codePoints(s).some(refusedInLine) && s.length <= 100);
      }),
    );
  });
});

describe('JSON Schema patterns', () => {
  const schemas = { identifier: identifier(64, 'sku'), freeText: freeText(200, { min: 1, trim: true }), multiline: freeText(200, { multiline: true }) };
  const patterns = Object.values(schemas).flatMap(patternsOf);

  it('land in the JSON Schema as plain \\uXXXX ranges, without engine-specific syntax', () => {
    expect(z.toJSONSchema(schemas.identifier)).toMatchObject({ type: 'string', minLength: 1, maxLength: 64, pattern: expect.any(String) as string });
    expect(patterns).toHaveLength(3);
    for (const pattern of patterns) {
      expect(pattern).not.toMatch(/\\[pPsSdDwWbB]|\\u\{|\(\?</);
      expect(() => new RegExp(pattern)).not.toThrow();
      expect(() => new RegExp(pattern, 'u')).not.toThrow();
    }
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)("compile in Python's re and agree with JavaScript on sample strings", () => {
    // Samples avoid a trailing newline: Python's (and Java's) `$` also matches before one.
    const samples = ['ABC-1', 'A B', 'A\u202eB', 'x\u0000y', 'tab\there', 'ok\r\nok', '\u00a0', 'Größe', '😀', 'a\u200bb', 'e\u0085', ' ', 'A\ufe0f', '\u3164', 'a\u2066b'];
    const script = [
      'import json, re, sys',
      'data = json.load(sys.stdin)',
      'print(json.dumps([[re.search(re.compile(p), s) is not None for s in data["samples"]] for p in data["patterns"]]))',
    ].join('\n');
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify({ patterns, samples }), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(patterns.map((p) => samples.map((s) => new RegExp(p).test(s))));
  });
});

describe('findUnsafeText()', () => {
  it('names the path of a lone surrogate, high or low, and of a NUL', () => {
    const body = JSON.parse('{"lines":[{"sku":"A"},{"sku":"B","name":"\\ud800x"}]}') as unknown;
    expect(findUnsafeText(body, 'body')).toEqual({ path: 'body.lines.1.name', problem: 'lone UTF-16 surrogate (\\ud800) is not allowed' });
    expect(findUnsafeText({ note: 'x\udc00' }, 'body')?.problem).toBe('lone UTF-16 surrogate (\\udc00) is not allowed');
    expect(findUnsafeText({ note: '\udc00\ud800' })?.path).toBe('note');
    expect(findUnsafeText({ a: { b: 'x\u0000' } }, 'query')).toEqual({ path: 'query.a.b', problem: 'the NUL character (U+0000) is not allowed' });
    expect(findUnsafeText({ ['k\ud800']: 1 }, 'body')?.path).toBe('body.(key)');
    expect(findUnsafeText('\ud83d')).toEqual({ path: '(value)', problem: 'lone UTF-16 surrogate (\\ud83d) is not allowed' });
  });

  it('passes well-formed text, surrogate pairs included', () => {
    expect(findUnsafeText({ name: '😀 Größe', n: 5, ok: true, none: null, list: ['a', 'b'] }, 'body')).toBeUndefined();
  });

  it('keeps assertNoNul throwing a 400 that names the path', () => {
    expect(() => assertNoNul({ name: 'a\ud800' }, 'arguments')).toThrow('arguments.name: lone UTF-16 surrogate (\\ud800) is not allowed');
  });

  it('finds something exactly when some string or key is ill-formed or holds NUL (property)', () => {
    const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
    const unsafe = (s: string) => s.includes('\u0000') || !(s as string & { isWellFormed(): boolean }).isWellFormed();
    const anyUnsafe = (v: unknown): boolean =>
      typeof v === 'string' ? unsafe(v) : v !== null && typeof v === 'object' && Object.entries(v).some(([k, item]) => unsafe(k) || anyUnsafe(item));
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: anyUnit, maxDepth: 4 }), (value) => {
        expect(findUnsafeText(value) !== undefined).toBe(anyUnsafe(value));
      }),
    );
  });
});
