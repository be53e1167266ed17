import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertNoNul, findUnsafeText } from '../../../src/platform/core/nul-guard.js';
import { freeText, identifier } from '../../../src/platform/core/text-rules.js';

/** The refused ranges as the rules state them, kept apart from the implementation's pattern on purpose. */
const CONTROL: [number, number][] = [[0x00, 0x1f], [0x7f, 0x9f]];
const WHITESPACE: [number, number][] = [[0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000]];
const INVISIBLE: [number, number][] = [
  [0xad, 0xad], [0x61c, 0x61c], [0x180e, 0x180e], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x2064], [0x2066, 0x2069], [0xfeff, 0xfeff],
];
const inRanges = (ranges: [number, number][], cp: number) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
const refusedInIdentifier = (cp: number) => inRanges(CONTROL, cp) || inRanges(WHITESPACE, cp) || inRanges(INVISIBLE, cp);
const refusedInFreeText = (cp: number) => inRanges(CONTROL, cp) && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d;
const codePoints = (s: string) => [...s].map((ch) => ch.codePointAt(0) ?? 0);
const everyRefused = (ranges: [number, number][]) => ranges.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));

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

  it('refuses every listed control, whitespace, invisible and bidi-control character', () => {
    for (const cp of [...everyRefused(CONTROL), ...everyRefused(WHITESPACE), ...everyRefused(INVISIBLE)]) {
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
    const bad = fc.constantFrom(...everyRefused(INVISIBLE), 0x00, 0x1b, 0x85, 0x20, 0x3000);
    fc.assert(
      fc.property(safe, bad, fc.nat(), (s, cp, at) => {
        const i = at % (s.length + 1);
        const [message] = messages(sku, `${s.slice(0, i)}${String.fromCodePoint(cp)}${s.slice(i)}`);
        expect(message).toContain(`(U+${cp.toString(16).toUpperCase().padStart(4, '0')} at position ${i + 1})`);
      }),
    );
  });
});

describe('freeText()', () => {
  it('allows tab, newline and carriage return, refuses other control characters', () => {
    const notes = freeText(100, { what: 'notes' });
    expect(notes.safeParse('line 1\r\nline 2\tend').success).toBe(true);
    expect(notes.safeParse('').success).toBe(true);
    expect(notes.safeParse('שלום \u202e bidi is text').success).toBe(true);
    expect(messages(notes, 'bell\u0007')).toEqual(['notes must not contain control characters other than tab, newline and carriage return (U+0007 at position 5)']);
    expect(messages(notes, 'x'.repeat(101))).toEqual(['notes must be at most 100 characters']);
  });

  it('trims and enforces a minimum when asked', () => {
    const name = freeText(10, { min: 1, trim: true, what: 'name' });
    expect(name.parse('  Wheel  ')).toBe('Wheel');
    expect(messages(name, '   ')).toEqual(['name must not be empty']);
    expect(messages(freeText(10), 'a\u0000')).toEqual(['text must not contain control characters other than tab, newline and carriage return (U+0000 at position 2)']);
  });

  it('accepts a string exactly when no character is refused (property)', () => {
    const text = freeText(1000);
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (s) => {
        expect(text.safeParse(s).success).toBe(!codePoints(s).some(refusedInFreeText));
      }),
    );
  });
});

describe('JSON Schema patterns', () => {
  const schemas = { identifier: identifier(64, 'sku'), freeText: freeText(200, { min: 1, trim: true }) };
  const patterns = Object.values(schemas).flatMap(patternsOf);

  it('land in the JSON Schema as plain \\uXXXX ranges, without engine-specific syntax', () => {
    expect(z.toJSONSchema(schemas.identifier)).toMatchObject({ type: 'string', minLength: 1, maxLength: 64, pattern: expect.any(String) as string });
    expect(patterns).toHaveLength(2);
    for (const pattern of patterns) {
      expect(pattern).not.toMatch(/\\[pPsSdDwWbB]|\\u\{|\(\?</);
      expect(() => new RegExp(pattern)).not.toThrow();
      expect(() => new RegExp(pattern, 'u')).not.toThrow();
    }
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)("compile in Python's re and agree with JavaScript on sample strings", () => {
    // Samples avoid a trailing newline: Python's (and Java's) `$` also matches before one.
    const samples = ['ABC-1', 'A B', 'A\u202eB', 'x\u0000y', 'tab\there', 'ok\r\nok', '\u00a0', 'Größe', '😀', 'a\u200bb', 'e\u0085', ' '];
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
