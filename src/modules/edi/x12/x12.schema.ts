/** Table notation for transaction set structures, written the way the X12 standard tables read. */

type Requirement = 'M' | 'O';
type ElementRequirement = 'M' | 'O' | 'X';
/** X12 data element types; 'C' is a composite, checked for presence only. */
type ElementType = 'AN' | 'ID' | 'N0' | 'N2' | 'R' | 'DT' | 'TM' | 'C';

interface SegmentRule {
  readonly kind: 'segment';
  readonly id: string;
  readonly req: Requirement;
  readonly max: number;
}

/** A loop; its first child is the segment that starts each iteration. */
export interface LoopRule {
  readonly kind: 'loop';
  readonly id: string;
  readonly req: Requirement;
  readonly max: number;
  readonly children: readonly StructureRule[];
}

export type StructureRule = SegmentRule | LoopRule;

export interface ElementRule {
  /** Data element reference number (AK402). */
  readonly ref: string;
  readonly req: ElementRequirement;
  readonly type: ElementType;
  readonly min: number;
  readonly max: number;
  readonly codes?: ReadonlySet<string>;
}

/**
 * X12 relational condition between elements of one segment (X12.6 syntax notes): P paired (any present -> all),
 * R required (at least one), E exclusion (at most one), C conditional (first present -> all others),
 * L list conditional (first present -> at least one other). `elements` are 1-based positions.
 */
export interface SyntaxRule {
  readonly kind: 'P' | 'R' | 'E' | 'C' | 'L';
  readonly elements: readonly number[];
}

/** Element rules of one segment; `rules[i]` describes element i + 1. */
export interface SegmentElements {
  readonly rules: readonly ElementRule[];
  readonly syntax?: readonly SyntaxRule[];
}

export interface TransactionSetSchema {
  readonly id: string;
  /** GS08 version/release this table is written from, e.g. '004010'. */
  readonly version: string;
  /** The whole set as one loop: ST first, SE last. */
  readonly root: LoopRule;
  readonly elements: Readonly<Record<string, SegmentElements>>;
  /** Every segment id that occurs anywhere in the structure. */
  readonly ids: ReadonlySet<string>;
}

export const UNBOUNDED = Number.POSITIVE_INFINITY;

export function seg(id: string, req: Requirement = 'O', max = 1): SegmentRule {
  return { kind: 'segment', id, req, max };
}

export function loop(id: string, req: Requirement, max: number, children: readonly StructureRule[]): LoopRule {
  return { kind: 'loop', id, req, max, children };
}

/** Id of the segment that matches a rule: the segment itself, or the loop's first segment. */
export function triggerId(rule: StructureRule): string {
  if (rule.kind === 'segment') return rule.id;
  const first = rule.children[0];
  return first === undefined ? rule.id : triggerId(first);
}

const TYPES: readonly string[] = ['AN', 'ID', 'N0', 'N2', 'R', 'DT', 'TM', 'C'];

function isElementType(value: string): value is ElementType {
  return TYPES.includes(value);
}

function isElementRequirement(value: string): value is ElementRequirement {
  return value === 'M' || value === 'O' || value === 'X';
}

/**
 * Parses element specs like '373 M DT 8/8' (ref, requirement, type, min/max) as printed in the standard.
 * `codes` maps data element refs to their allowed values where the gateway checks code lists.
 */
export function elements(
  specs: readonly string[],
  codes: Readonly<Record<string, readonly string[]>> = {},
  notes: readonly string[] = [],
): SegmentElements {
  const rules = specs.map((spec): ElementRule => {
    const [ref = '', req = '', type = '', size = ''] = spec.split(' ');
    if (!isElementRequirement(req) || !isElementType(type)) throw new Error(`bad element spec '${spec}'`);
    const [min = '0', max = '0'] = size.split('/');
    const list = codes[ref];
    const rule = { ref, req, type, min: Number(min), max: type === 'C' ? UNBOUNDED : Number(max) };
    return list === undefined ? rule : { ...rule, codes: new Set(list) };
  });
  return notes.length === 0 ? { rules } : { rules, syntax: notes.map(syntaxRule) };
}

/** Parses a syntax note as the standard prints it: 'P0304' = elements 03 and 04 paired. */
export function syntaxRule(note: string): SyntaxRule {
  const kind = note.charAt(0);
  const digits = note.slice(1);
  if (!(kind === 'P' || kind === 'R' || kind === 'E' || kind === 'C' || kind === 'L') || !/^(\d\d){2,}$/.test(digits)) {
    throw new Error(`bad syntax note '${note}'`);
  }
  const positions = digits.match(/\d\d/g) ?? [];
  return { kind, elements: positions.map(Number) };
}

/** Collects every segment id of a structure (for "segment not in this set" checks). */
export function collectIds(rule: StructureRule, into: Set<string> = new Set()): Set<string> {
  if (rule.kind === 'segment') into.add(rule.id);
  else for (const child of rule.children) collectIds(child, into);
  return into;
}
