import { X12_CODES, type X12Issue } from './x12.types.js';

/**
 * How strictly a partner's sets are judged. `strict`: any finding rejects its set (AK5 R). `lenient`: findings that
 * do not stop the gateway from reading the document (LENIENT_TOLERATES) are reported with AK5 E and their AK3/AK4,
 * and the set is processed; everything else still rejects it.
 */
export type ValidationLevel = 'strict' | 'lenient';

/**
 * Elements the gateway reads out of an 850 (messages/purchase-order.ts and order-lines.ts), by segment id: BEG01
 * purpose, BEG03 PO number, BEG05 date; PO101..PO125 (line id, quantity, unit, price, basis, product id pairs);
 * the ship-to N1 loop (N101..N104, N2, N3, N4); NTE02 and MSG01 notes. A finding on any of them is never tolerated.
 */
export const ELEMENTS_READ: Readonly<Record<string, readonly number[]>> = {
  BEG: [1, 3, 5],
  PO1: Array.from({ length: 25 }, (_, i) => i + 1),
  N1: [1, 2, 3, 4],
  N2: [1, 2],
  N3: [1, 2],
  N4: [1, 2, 3, 4],
  NTE: [2],
  MSG: [1],
};

/** The finding kinds the lenient level tolerates, each on an element the gateway does not read (for the docs). */
export const LENIENT_TOLERATES: readonly { code: string; description: string }[] = [
  { code: X12_CODES.conditionalElementMissing, description: 'a relational condition (syntax note P, R, C or L) is broken: an element another one requires is missing' },
  { code: X12_CODES.exclusionViolated, description: 'an exclusion (syntax note E) is broken: two elements that must not both be used are' },
  { code: X12_CODES.invalidCode, description: 'a code outside the element\'s code list, or not shaped like a code' },
];

const TOLERATED_CODES: ReadonlySet<string> = new Set(LENIENT_TOLERATES.map((t) => t.code));

/**
 * True for a finding the lenient level reports as an error noted (AK5 E) without rejecting its set: an element-level
 * finding of a LENIENT_TOLERATES kind on an element the gateway does not read. Envelope and structure findings,
 * missing mandatory segments and elements, data types, sizes, and anything on an element we read are never tolerated.
 */
export function tolerated(issue: X12Issue): boolean {
  if (issue.level !== 'element' || !TOLERATED_CODES.has(issue.code)) return false;
  if (issue.segmentId === undefined || issue.element === undefined) return false;
  return !(ELEMENTS_READ[issue.segmentId]?.includes(issue.element) ?? false);
}
