/**
 * The acknowledgment code lists per X12 version, and the nearest code a version holds for each finding.
 *
 * Each code is listed with the earliest release known to hold it with the meaning the gateway uses (read from the
 * published element dictionaries: 002003, 002040, 003020, 003030, 003040, 003050, 003060, 003070, 004010, 004020,
 * 004030, 004050, 005010, 005040, 005050, 006010, 006030, 006050). A code whose number once meant something else is
 * listed from the release that gave it the meaning we write: 716 code 19 is "S1E security end segment missing" up to
 * 004010 and "functional group control number not unique" from 004050, so a duplicate GS06 in a 004010 group is
 * answered with 6 (group control number violates syntax) and the HTTP answer keeps the precise finding.
 */

/** The elements an acknowledgment writes codes into. */
export type AckElement =
  | '715' // AK901 Functional Group Acknowledge Code
  | '716' // AK905..AK909 Functional Group Syntax Error Code
  | '717' // AK501 Transaction Set Acknowledgment Code
  | '718' // AK502..AK506 Transaction Set Syntax Error Code
  | '720' // AK304 Segment Syntax Error Code
  | '723' // AK403 Data Element Syntax Error Code
  | 'I17' // TA104 Interchange Acknowledgment Code
  | 'I18'; // TA105 Interchange Note Code

type Since = readonly (readonly [code: string, since: string])[];

const from = (since: string, ...codes: string[]): Since => codes.map((code) => [code, since] as const);
const range = (a: number, b: number, width = 1): string[] => Array.from({ length: b - a + 1 }, (_, i) => String(a + i).padStart(width, '0'));

const SINCE: Readonly<Record<AckElement, Since>> = {
  '715': [...from('002000', 'A', 'E', 'P', 'R'), ...from('003030', 'M', 'X'), ...from('005050', 'W')],
  '716': [
    ...from('002000', ...range(1, 5)),
    ...from('003040', '6', ...range(10, 18)),
    ...from('004010', ...range(23, 26)),
    ...from('004050', '19'),
    ...from('006050', '7', '8', '9', '30', '31'),
  ],
  '717': [...from('002000', 'A', 'E', 'R'), ...from('003040', 'M', 'X'), ...from('005050', 'W')],
  '718': [
    ...from('002000', ...range(1, 5)),
    ...from('002040', '6', '7'),
    ...from('003030', ...range(8, 13), '15', '16', '17', '23'),
    ...from('004010', ...range(24, 27)),
    ...from('005040', '18'),
  ],
  '720': [...from('002000', ...range(1, 7)), ...from('003040', '8')],
  '723': [...from('002000', ...range(1, 9)), ...from('003050', '10'), ...from('005050', '12', '13')],
  I17: from('002000', 'A', 'E', 'R'),
  I18: [...from('003040', ...range(0, 27, 3)), ...from('003050', ...range(28, 31, 3))],
};

/**
 * Where a code goes in a version that does not hold it: the next nearest code, until one is held. Each chain ends in
 * a code every version of the element holds.
 */
const NEAREST: Readonly<Record<AckElement, Readonly<Record<string, string>>>> = {
  '715': { M: 'R', W: 'R', X: 'R' },
  // Not unique -> violates syntax -> not supported.
  '716': { '19': '6', '6': '1' },
  '717': { M: 'R', W: 'R', X: 'R' },
  // Not unique -> missing or invalid control number -> not supported.
  '718': { '23': '7', '7': '1', '6': '1', '18': '1' },
  // Has data element errors -> unexpected segment (the oldest lists have no code for a segment whose elements are wrong).
  '720': { '8': '2' },
  // Exclusion violated, too many repetitions or components -> too many data elements.
  '723': { '10': '3', '12': '3', '13': '3' },
  I17: {},
  I18: { '028': '024', '029': '024', '030': '024', '031': '024' },
};

/** A code every version holds, for a code the tables do not know at all (the chains cover every code the gateway writes). */
const FALLBACK: Readonly<Record<AckElement, string>> = { '715': 'R', '716': '1', '717': 'R', '718': '1', '720': '2', '723': '7', I17: 'R', I18: '024' };

/** The release a version string names: its first six digits (GS08 '004010VICS' -> '004010'); ISA12 '00401' -> '004010'. */
export function releaseOf(version: string): string | undefined {
  if (/^\d{6}/.test(version)) return version.slice(0, 6);
  if (/^\d{5}$/.test(version)) return `${version}0`;
  return undefined;
}

const earliest = (element: AckElement): string => SINCE[element].reduce((min, [, since]) => (since < min ? since : min), '999999');

/** Every code `element` holds in `version` (a release before our earliest is read as the earliest). */
export function ackCodes(element: AckElement, version: string): ReadonlySet<string> {
  const release = releaseOf(version) ?? '004010';
  const at = release < earliest(element) ? earliest(element) : release;
  return new Set(SINCE[element].filter(([, since]) => since <= at).map(([code]) => code));
}

const cache = new Map<string, ReadonlySet<string>>();

function held(element: AckElement, version: string): ReadonlySet<string> {
  const key = `${element}|${releaseOf(version) ?? ''}`;
  let codes = cache.get(key);
  if (codes === undefined) {
    codes = ackCodes(element, version);
    cache.set(key, codes);
  }
  return codes;
}

/** `code` when `version` holds it in `element`, else the nearest code it holds (NEAREST's chain). */
export function ackCode(element: AckElement, code: string, version: string): string {
  const codes = held(element, version);
  let c = code;
  for (let i = 0; i < 5 && !codes.has(c); i++) {
    const next = NEAREST[element][c];
    if (next === undefined) break;
    c = next;
  }
  return codes.has(c) ? c : FALLBACK[element];
}
