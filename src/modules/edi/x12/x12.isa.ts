import { X12_CODES, type Delimiters, type X12Issue } from './x12.types.js';

/** Widths of ISA01..ISA16; the ISA is fixed-length so its 4th character names the element separator. */
export const ISA_WIDTHS: readonly number[] = [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1];
/** ISA segment length including its terminator. */
const ISA_LENGTH = 106;
/** Interchange control versions this gateway accepts (ISA12): every version whose ISA has this layout. */
const ISA_VERSION_RANGE = { min: '00200', max: '00801' } as const;

/** True for a 5-digit ISA12 from 00200 to 00801 (the same fixed ISA; ISA11 is the repetition separator from 00402). */
function isSupportedIsaVersion(version: string): boolean {
  return /^\d{5}$/.test(version) && version >= ISA_VERSION_RANGE.min && version <= ISA_VERSION_RANGE.max;
}

interface IsaHeader {
  isa: string[];
  delimiters: Delimiters;
  /** Index just after the ISA terminator. */
  end: number;
}

const BOM = 0xfeff;

/** Index of the first character after any BOM and leading whitespace. */
export function skipLeadingNoise(input: string): number {
  let i = 0;
  // A UTF-8 BOM decoded as latin1 shows up as these three characters.
  if (input.startsWith('\u00EF\u00BB\u00BF')) i = 3;
  while (i < input.length) {
    const code = input.charCodeAt(i);
    if (code === BOM || code === 32 || code === 9 || code === 10 || code === 13) i++;
    else break;
  }
  return i;
}

/** Letters, digits and whitespace can never be delimiters. */
export function isUsableDelimiter(ch: string): boolean {
  return ch.length === 1 && !/[A-Za-z0-9\s]/.test(ch);
}

function isaIssue(code: string, message: string, element?: number, value?: string): X12Issue {
  return { position: 1, segmentId: 'ISA', element, code, message, level: 'interchange', value };
}

function isBreak(code: number): boolean {
  return code === 10 || code === 13;
}

/** True when the input has 'ISA' at `at`, line breaks between its letters skipped (a file wrapped at 80 columns). */
export function startsWithIsa(input: string, at: number): boolean {
  let i = at;
  for (const letter of 'ISA') {
    while (i < input.length && isBreak(input.charCodeAt(i))) i++;
    if (input.charAt(i) !== letter) return false;
    i++;
  }
  return true;
}

/**
 * The ISA at `start` without the line breaks a wrapping VAN or mailbox put inside it (80 or 132 columns): its 105
 * characters before the terminator, then the terminator itself (the first character after them that is not a line
 * break). `end` is the raw index just after the terminator. Undefined when the input ends first or the terminator
 * would be a letter, digit or space (then the breaks were the terminator, and the ISA is read as it stands).
 */
function unwrapIsa(input: string, start: number): { text: string; end: number } | undefined {
  let text = '';
  let i = start;
  for (; i < input.length && text.length < ISA_LENGTH - 1; i++) if (!isBreak(input.charCodeAt(i))) text += input.charAt(i);
  while (i < input.length && isBreak(input.charCodeAt(i))) i++;
  const terminator = input.charAt(i);
  if (terminator === '' || /[A-Za-z0-9\s]/.test(terminator)) return undefined;
  return { text: text + terminator, end: i + 1 };
}

/**
 * Reads the ISA at `start`: delimiters, ISA01..ISA16 and where the next segment begins.
 * Returns undefined when no delimiters can be trusted (then the input cannot be split at all).
 * Line breaks inside the ISA are not data when the segment terminator is something else: an ISA that reads wrong as
 * it stands but right without them is taken (its fixed positions counted without the breaks).
 */
export function readIsa(input: string, start: number, issues: X12Issue[]): IsaHeader | undefined {
  const found: X12Issue[] = [];
  const header = readIsaAsIs(input, start, found);
  if (found.length > 0 && /[\r\n]/.test(input.slice(start, (header?.end ?? start + ISA_LENGTH + 40) - 1))) {
    const unwrapped = unwrapIsa(input, start);
    const retried: X12Issue[] = [];
    const read = unwrapped === undefined ? undefined : readIsaAsIs(unwrapped.text, 0, retried);
    if (unwrapped !== undefined && read !== undefined && retried.length === 0) return { ...read, end: unwrapped.end };
  }
  for (const issue of found) issues.push(issue);
  return header;
}

/** readIsa on the text as it stands. */
function readIsaAsIs(input: string, start: number, issues: X12Issue[]): IsaHeader | undefined {
  const element = input.charAt(start + 3);
  if (element === '') {
    issues.push(isaIssue(X12_CODES.prematureEnd, 'input ends inside the ISA segment'));
    return undefined;
  }
  if (!isUsableDelimiter(element)) {
    // "ISAAC..." or "ISA 123" is text that happens to start with ISA, not an interchange.
    issues.push(isaIssue(X12_CODES.notX12, `'ISA${element}' does not start an interchange: the 4th character must be the element separator`));
    return undefined;
  }
  // Separators are found by indexOf so a mis-padded ISA can still be read (and reported) instead of rejected blind.
  const seps: number[] = [start + 3];
  const window = start + ISA_LENGTH + 40;
  for (let i = 1; i < 16; i++) {
    const prev = seps[i - 1] ?? start;
    const next = input.indexOf(element, prev + 1);
    if (next === -1 || next > window) {
      const truncated = next === -1;
      issues.push(
        isaIssue(
          truncated ? X12_CODES.prematureEnd : X12_CODES.invalidControlStructure,
          truncated ? `ISA has ${i} of 16 elements before the input ends` : `ISA has only ${i} of 16 elements`,
        ),
      );
      return undefined;
    }
    seps.push(next);
  }
  const last = seps[15] ?? start;
  const component = input.charAt(last + 1);
  const segment = input.charAt(last + 2);
  if (component === '' || segment === '') {
    issues.push(isaIssue(X12_CODES.prematureEnd, 'input ends before the ISA segment terminator'));
    return undefined;
  }
  if (segment === element || segment === component || /[A-Za-z0-9 ]/.test(segment)) {
    issues.push(isaIssue(X12_CODES.invalidSegmentTerminator, `segment terminator '${segment}' is not usable`));
    return undefined;
  }
  const isa: string[] = [];
  for (let i = 0; i < 15; i++) isa.push(input.slice((seps[i] ?? 0) + 1, seps[i + 1]));
  isa.push(component);

  const length = last + 3 - start;
  if (length !== ISA_LENGTH) {
    issues.push(isaIssue(X12_CODES.invalidControlStructure, `ISA is ${length} characters; it must be ${ISA_LENGTH}`));
  }
  // Widths are checked even at 106 characters: one short field and one long field cancel out in the total.
  isa.forEach((value, i) => {
    const width = ISA_WIDTHS[i] ?? 0;
    if (value.length !== width) {
      issues.push(
        isaIssue(X12_CODES.invalidControlStructure, `ISA${pad2(i + 1)} must be ${width} characters; found ${value.length}`, i + 1, value),
      );
    }
  });
  if (!isUsableDelimiter(component) || component === element) {
    issues.push(isaIssue(X12_CODES.invalidComponentSeparator, `component separator '${component}' is not usable`, 16, component));
  }
  const version = isa[11] ?? '';
  if (!/^\d{5}$/.test(version)) {
    issues.push(isaIssue(X12_CODES.invalidVersion, `ISA12 '${version}' is not a 5-digit version`, 12, version));
  } else if (!isSupportedIsaVersion(version)) {
    issues.push(isaIssue(X12_CODES.controlVersionUnsupported, `ISA12 version ${version} is not supported`, 12, version));
  }
  const control = isa[12] ?? '';
  if (!/^\d{9}$/.test(control)) {
    issues.push(isaIssue(X12_CODES.invalidControlNumber, `ISA13 '${control}' is not a 9-digit control number`, 13, control));
  }
  const usage = isa[14] ?? '';
  if (usage !== 'P' && usage !== 'T') {
    issues.push(isaIssue(X12_CODES.invalidUsage, `ISA15 '${usage}' must be P or T`, 15, usage));
  }
  const rep = isa[10] ?? '';
  // Before 00402 ISA11 is the standards identifier ('U'), never a separator.
  const repetition =
    version >= '00402' && isUsableDelimiter(rep) && rep !== element && rep !== component && rep !== segment ? rep : null;
  return { isa, delimiters: { element, component, repetition, segment }, end: last + 3 };
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
