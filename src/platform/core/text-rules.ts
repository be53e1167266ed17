import { z } from 'zod';

/*
 * Character rules for input strings, as zod schemas whose `pattern` lands in the JSON Schema (OpenAPI, MCP tool
 * schemas). The patterns are written for other engines too: no \p{...}, no \s (its meaning differs between
 * JavaScript, Python, RE2 and Java), no u-flag syntax; every class is an explicit \uXXXX range. Characters beyond
 * U+FFFF (tag characters and the like) are written as UTF-16 surrogate pairs in a lookahead: engines that match
 * UTF-16 code units (JavaScript without the u flag, as this server runs them) refuse them; engines that match code
 * points see a lookahead that never matches, so the pattern there is only as strict as its BMP part.
 */

type Range = readonly [number, number];

/** C0 controls, DEL and C1 controls. */
const CONTROL: Range[] = [[0x00, 0x1f], [0x7f, 0x9f]];
/** Unicode whitespace beyond the C0 controls (space, no-break spaces, the U+2000 block, line and paragraph separators). */
const WHITESPACE: Range[] = [[0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000]];
/**
 * Unicode's Default_Ignorable_Code_Point (Unicode 15.1): soft hyphen, zero-width characters, bidi controls, variation
 * selectors, Hangul fillers, tag characters, ... Rendered as nothing, so two identifiers that look alike could differ.
 */
export const DEFAULT_IGNORABLE: Range[] = [
  [0xad, 0xad], [0x34f, 0x34f], [0x61c, 0x61c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f], [0x200b, 0x200f],
  [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
];
/** Bidi embeddings, overrides and isolates: they reorder what a reader sees (Trojan Source). Marks (LRM, RLM, ALM) stay. */
export const BIDI_OVERRIDES: Range[] = [[0x202a, 0x202e], [0x2066, 0x2069]];
/**
 * Invisible characters free text refuses: zero-width space, word joiner and invisible operators, deprecated format
 * characters, the byte order mark, tag characters (they smuggle text past a reader, an agent's prompt included) and the
 * other format controls beyond U+FFFF. ZWNJ (Persian, Indic scripts), variation selectors (emoji, CJK ideographic
 * variants) and ZWJ inside an emoji stay.
 */
export const INVISIBLE_IN_TEXT: Range[] = [
  [0x180e, 0x180e], [0x200b, 0x200b], [0x2060, 0x2065], [0x206a, 0x206f], [0xfeff, 0xfeff], [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe00ff], [0xe01f0, 0xe0fff],
];
/** Line breaks: newline, vertical tab, form feed, carriage return, next line, line and paragraph separators. */
const LINE_BREAKS: Range[] = [[0x0a, 0x0d], [0x85, 0x85], [0x2028, 0x2029]];
/** Control characters other than tab, newline and carriage return. */
const FREE_TEXT_CONTROL: Range[] = [[0x00, 0x08], [0x0b, 0x0c], [0x0e, 0x1f], [0x7f, 0x9f]];
/** Control characters other than tab. */
const SINGLE_LINE_CONTROL: Range[] = [[0x00, 0x08], [0x0a, 0x1f], [0x7f, 0x9f]];

const ZWJ = '\u200d';

const hex = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
const bmpClass = (ranges: Range[]) => ranges.filter(([lo]) => lo <= 0xffff).map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('');
const surrogates = (cp: number): [number, number] => [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)];

/** The ranges beyond U+FFFF as alternatives of surrogate pairs: a lead surrogate (or a run of them) and its trail range. */
function astralAlternatives(ranges: Range[]): string[] {
  const out: string[] = [];
  for (const [lo, hi] of ranges.filter(([from]) => from > 0xffff)) {
    const [loLead, loTrail] = surrogates(lo);
    const [hiLead, hiTrail] = surrogates(hi);
    const trail = (a: number, b: number) => (a === b ? hex(a) : `[${hex(a)}-${hex(b)}]`);
    if (loLead === hiLead) {
      out.push(`${hex(loLead)}${trail(loTrail, hiTrail)}`);
      continue;
    }
    const fullFrom = loTrail === 0xdc00 ? loLead : loLead + 1;
    const fullTo = hiTrail === 0xdfff ? hiLead : hiLead - 1;
    if (fullFrom > loLead) out.push(`${hex(loLead)}${trail(loTrail, 0xdfff)}`);
    if (fullFrom <= fullTo) out.push(`${fullFrom === fullTo ? hex(fullFrom) : `[${hex(fullFrom)}-${hex(fullTo)}]`}[\\udc00-\\udfff]`);
    if (fullTo < hiLead) out.push(`${hex(hiLead)}${trail(0xdc00, hiTrail)}`);
  }
  return out;
}

/** A whole-string pattern refusing every character in `ranges`, portable as the header says. */
function refusing(ranges: Range[]): RegExp {
  const astral = astralAlternatives(ranges);
  const unit = `[^${bmpClass(ranges)}]`;
  return new RegExp(astral.length === 0 ? `^${unit}*$` : `^(?:(?!${astral.join('|')})${unit})*$`);
}

/** Whether one character (a code point, one or two UTF-16 units) is in `ranges`. */
const inRanges = (ranges: Range[]) => (ch: string) => {
  const cp = ch.codePointAt(0) ?? 0;
  return ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
};

type Rule = [test: (ch: string) => boolean, name: string];

const codePoint = (ch: string): string => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** "<what> must not contain <rule> (U+202E at position 3)": the first refused character, 1-based, counted in code points. */
function describeFirst(input: unknown, what: string, rules: Rule[]): string {
  if (typeof input === 'string') {
    let position = 0;
    for (const ch of input) {
      position += 1;
      const rule = rules.find(([test]) => test(ch));
      if (rule) return `${what} must not contain ${rule[1]} (${codePoint(ch)} at position ${position})`;
    }
  }
  return `${what} must not contain ${rules.map(([, name]) => name).join(', ')}`;
}

const IDENTIFIER_REFUSED = [...CONTROL, ...WHITESPACE, ...DEFAULT_IGNORABLE];
const IDENTIFIER_PATTERN = refusing(IDENTIFIER_REFUSED);
/** For the error message only: which rule a refused character breaks, checked in this order. */
const IDENTIFIER_RULES: Rule[] = [
  [inRanges(DEFAULT_IGNORABLE), 'invisible or bidi-control characters'],
  [inRanges(CONTROL), 'control characters'],
  [inRanges(WHITESPACE), 'whitespace'],
];

/**
 * An identifier (SKU, PO number, claim number, object key): 1 to `max` characters, with no whitespace, control or
 * default-ignorable (invisible, bidi-control, variation selector, tag, Hangul filler) characters, since it travels in
 * URL paths, EDI segments and log lines, and two identifiers that look alike must be equal.
 */
export function identifier(max: number, what: string) {
  return z
    .string()
    .min(1, { error: `${what} must not be empty` })
    .max(max, { error: `${what} must be at most ${max} characters` })
    .regex(IDENTIFIER_PATTERN, { error: (issue) => describeFirst(issue.input, what, IDENTIFIER_RULES) });
}

const BIDI_RULE: Rule = [inRanges(BIDI_OVERRIDES), 'bidi overrides or isolates'];
const INVISIBLE_RULE: Rule = [inRanges(INVISIBLE_IN_TEXT), 'invisible characters'];
const MULTI_LINE = {
  pattern: refusing([...FREE_TEXT_CONTROL, ...BIDI_OVERRIDES, ...INVISIBLE_IN_TEXT]),
  rules: [[inRanges(FREE_TEXT_CONTROL), 'control characters other than tab, newline and carriage return'], BIDI_RULE, INVISIBLE_RULE] as Rule[],
};
const SINGLE_LINE = {
  pattern: refusing([...SINGLE_LINE_CONTROL, ...LINE_BREAKS, ...BIDI_OVERRIDES, ...INVISIBLE_IN_TEXT]),
  rules: [[inRanges(LINE_BREAKS), 'line breaks'], [inRanges(SINGLE_LINE_CONTROL), 'control characters other than tab'], BIDI_RULE, INVISIBLE_RULE] as Rule[],
};

/** A ZWJ not joining two emoji (a pictograph, with its variation selector or skin tone, before; a pictograph after). */
const STRAY_ZWJ = /(?<!\p{Extended_Pictographic}(?:\u{fe0f}|[\u{1f3fb}-\u{1f3ff}])?)\u200d|\u200d(?!\p{Extended_Pictographic})/u;

/** "<what> must not contain a zero-width joiner outside an emoji (U+200D at position 4)", or undefined when none strays. */
export function strayJoiner(text: string, what: string): string | undefined {
  const at = STRAY_ZWJ.exec(text)?.index;
  if (at === undefined) return undefined;
  const position = [...text.slice(0, at)].length + 1;
  return `${what} must not contain a zero-width joiner outside an emoji (U+200D at position ${position})`;
}

interface FreeTextOptions {
  /** Minimum length (after trimming when `trim` is set); default 0. */
  min?: number;
  /** Trim surrounding whitespace before the length checks; default false. */
  trim?: boolean;
  /** The field as the error message names it; default "text". */
  what?: string;
  /** Whether line breaks (newline, CR) are allowed: notes, descriptions, addresses. Default false: one line. */
  multiline?: boolean;
}

/**
 * Free text (names, labels, notes, addresses): up to `max` characters. Refused: control characters (tab allowed; newline
 * and CR too in multi-line text), bidi overrides and isolates, invisible characters, and a ZWJ outside an emoji.
 */
export function freeText(max: number, opts: FreeTextOptions = {}) {
  const what = opts.what ?? 'text';
  const min = opts.min ?? 0;
  const { pattern, rules } = opts.multiline ? MULTI_LINE : SINGLE_LINE;
  // The pattern runs on the text as sent, so JSON Schema validators elsewhere agree with this one.
  const checked = z
    .string()
    .regex(pattern, { error: (issue) => describeFirst(issue.input, what, rules) })
    .superRefine((text, ctx) => {
      const stray = text.includes(ZWJ) ? strayJoiner(text, what) : undefined;
      if (stray) ctx.addIssue({ code: 'custom', message: stray, input: text });
    });
  const trimmed = opts.trim ? checked.trim() : checked;
  const bounded = min > 0 ? trimmed.min(min, { error: min === 1 ? `${what} must not be empty` : `${what} must be at least ${min} characters` }) : trimmed;
  return bounded.max(max, { error: `${what} must be at most ${max} characters` });
}
