import { z } from 'zod';

/*
 * Character rules for input strings, as zod schemas whose `pattern` lands in the JSON Schema (OpenAPI, MCP tool
 * schemas). The patterns are written for other engines too: no \p{...}, no \s (its meaning differs between
 * JavaScript, Python, RE2 and Java), no u-flag syntax; every class is an explicit \uXXXX range.
 */

/** C0 controls, DEL and C1 controls. */
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
/** Unicode whitespace beyond the C0 controls (space, no-break spaces, the U+2000 block, line and paragraph separators). */
const WHITESPACE = '\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** Zero-width, soft-hyphen and word-joiner characters, the byte order mark, and the bidi controls (Trojan Source). */
const INVISIBLE = '\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff';
/** Control characters other than tab, newline and carriage return. */
const FREE_TEXT_CONTROL = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';

const IDENTIFIER_PATTERN = new RegExp(`^[^${CONTROL}${WHITESPACE}${INVISIBLE}]*$`);
const FREE_TEXT_PATTERN = new RegExp(`^[^${FREE_TEXT_CONTROL}]*$`);

/** For the error message only: which rule a refused character breaks, checked in this order. */
const IDENTIFIER_RULES: [RegExp, string][] = [
  [new RegExp(`[${INVISIBLE}]`), 'invisible or bidi-control characters'],
  [new RegExp(`[${CONTROL}]`), 'control characters'],
  [new RegExp(`[${WHITESPACE}]`), 'whitespace'],
];
const FREE_TEXT_RULES: [RegExp, string][] = [[new RegExp(`[${FREE_TEXT_CONTROL}]`), 'control characters other than tab, newline and carriage return']];

const codePoint = (ch: string): string => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** "<what> must not contain <rule> (U+202E at position 3)": the first refused character, 1-based, counted in code points. */
function describeFirst(input: unknown, what: string, rules: [RegExp, string][]): string {
  if (typeof input === 'string') {
    let position = 0;
    for (const ch of input) {
      position += 1;
      const rule = rules.find(([re]) => re.test(ch));
      if (rule) return `${what} must not contain ${rule[1]} (${codePoint(ch)} at position ${position})`;
    }
  }
  return `${what} must not contain ${rules.map(([, name]) => name).join(', ')}`;
}

/**
 * An identifier (SKU, PO number, claim number, object key): 1 to `max` characters, with no whitespace, control,
 * invisible or bidi-control characters, since it travels in URL paths, EDI segments and log lines, and two
 * identifiers that look alike must be equal.
 */
export function identifier(max: number, what: string) {
  return z
    .string()
    .min(1, { error: `${what} must not be empty` })
    .max(max, { error: `${what} must be at most ${max} characters` })
    .regex(IDENTIFIER_PATTERN, { error: (issue) => describeFirst(issue.input, what, IDENTIFIER_RULES) });
}

interface FreeTextOptions {
  /** Minimum length (after trimming when `trim` is set); default 0. */
  min?: number;
  /** Trim surrounding whitespace before the length checks; default false. */
  trim?: boolean;
  /** The field as the error message names it; default "text". */
  what?: string;
}

/** Free text (names, notes, addresses): up to `max` characters; control characters are refused except tab, newline and CR. */
export function freeText(max: number, opts: FreeTextOptions = {}) {
  const what = opts.what ?? 'text';
  const min = opts.min ?? 0;
  // The pattern runs on the text as sent, so JSON Schema validators elsewhere agree with this one.
  const checked = z.string().regex(FREE_TEXT_PATTERN, { error: (issue) => describeFirst(issue.input, what, FREE_TEXT_RULES) });
  const trimmed = opts.trim ? checked.trim() : checked;
  const bounded = min > 0 ? trimmed.min(min, { error: min === 1 ? `${what} must not be empty` : `${what} must be at least ${min} characters` }) : trimmed;
  return bounded.max(max, { error: `${what} must be at most ${max} characters` });
}
