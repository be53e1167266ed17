import { EXTERNAL_CODE_ELEMENTS, isCodeShaped } from './x12.code-lists.js';
import { checkElementValue } from './x12.elements.js';
import { SCHEMA_850_5010 } from './x12.schema-850-5010.js';
import { SCHEMA_850 } from './x12.schema-850.js';
import { SCHEMA_997, SCHEMA_997_5010 } from './x12.schema-997.js';
import { triggerId, UNBOUNDED, type LoopRule, type StructureRule, type TransactionSetSchema } from './x12.schema.js';
import { readSegments } from './x12.segments.js';
import { checkSyntaxRules } from './x12.syntax-rules.js';
import { X12_CODES, type Interchange, type PartialInterchange, type Segment, type TransactionSet, type X12Issue } from './x12.types.js';

/** Sets whose contents the gateway checks, one table per version; other sets (855, 856, 810 inbound, ...) get envelope checks only. */
const TABLES: Readonly<Record<string, readonly TransactionSetSchema[]>> = {
  '850': [SCHEMA_850, SCHEMA_850_5010],
  '997': [SCHEMA_997, SCHEMA_997_5010],
};

/** Segment ids known to X12 (other common sets, or these sets in another version), just not allowed here (AK304 6, not 1). */
const OTHER_SEGMENTS = new Set([
  'ACK', 'AK1', 'AK2', 'AK3', 'AK4', 'AK5', 'AK9', 'BAK', 'BCH', 'BCA', 'BGN', 'BHT', 'BIG', 'BPR', 'BSN', 'CAD', 'CAS', 'CLP', 'CTX',
  'DTP', 'ENT', 'G62', 'HI', 'HL', 'IK3', 'IK4', 'IK5', 'ISS', 'IT1', 'LX', 'N7', 'N8', 'NM1', 'OID', 'PLB', 'POC', 'PRF', 'RMR',
  'SN1', 'SV1', 'SVC', 'TA1', 'TDS', 'TRN', 'W05', 'W06', 'W12', 'W17',
  ...Object.values(TABLES).flatMap((tables) => tables.flatMap((table) => [...table.ids])),
]);

/**
 * Findings that depend on the version's own table (which segments exist where, how often, how many elements, how
 * long, which codes): not reported when a set is checked against the nearest table of another version.
 */
const VERSION_DEPENDENT: ReadonlySet<string> = new Set([
  X12_CODES.unrecognizedSegment, X12_CODES.unexpectedSegment, X12_CODES.loopOverMax, X12_CODES.segmentOverMax,
  X12_CODES.segmentNotInSet, X12_CODES.segmentOutOfSequence, X12_CODES.tooManyElements, X12_CODES.elementTooShort,
  X12_CODES.elementTooLong, X12_CODES.invalidCode,
]);

/** Which table a set was checked against. */
export interface TableUse {
  groupControl: string | undefined;
  /** ST02 */
  setControl: string;
  /** ST01 */
  setId: string;
  /** Interchange position of the ST segment. */
  position: number;
  /** The version asked for: GS08 as sent, cut to its 12 characters, anything outside printable ASCII as '?'. */
  version: string;
  /** Version of the table used, e.g. '004010'. */
  table: string;
  /**
   * True when the gateway has no table for `version`: the set got envelope and syntax checks only (mandatory
   * segments and elements, data types, relational conditions, code shape) against `table`, the nearest version.
   */
  fallback: boolean;
  /** Human-readable account of a fallback, for the 997 or the HTTP answer; undefined when `fallback` is false. */
  note?: string;
}

interface SetValidation {
  issues: X12Issue[];
  /** undefined for sets the gateway has no table for at all (envelope checks only). */
  table: TableUse | undefined;
}

interface InterchangeValidation {
  issues: X12Issue[];
  /** One entry per checked set, in interchange order; `fallback` marks sets checked against another version's table. */
  tables: TableUse[];
}

const SEGMENT_ID = /^[A-Z][A-Z0-9]{1,2}$/;

/** Findings per set beyond which only a note is added: the set is rejected either way and the 997 stays bounded. */
const MAX_SET_ISSUES = 200;

interface Frame {
  rule: LoopRule;
  index: number;
  counts: number[];
}

/** Walks one set against its schema: loops, sequence, repeats, mandatory segments, then each segment's elements. */
class SetValidator {
  readonly issues: X12Issue[] = [];
  private readonly stack: Frame[];
  private truncated = false;

  constructor(
    private readonly schema: TransactionSetSchema,
    private readonly set: TransactionSet,
    private readonly groupControl: string | undefined,
    /** Checking against another version's table: version-dependent findings are dropped. */
    private readonly lenient: boolean,
  ) {
    this.stack = [this.frame(schema.root, 0)];
  }

  run(segments: readonly Segment[]): X12Issue[] {
    let last = this.set.position;
    for (const segment of segments) {
      this.place(segment);
      this.checkElements(segment);
      last = segment.position;
    }
    // Without SE the parser already reported the missing trailer; still report mandatory segments never seen.
    while (this.stack.length > 1) this.close(this.stack.pop(), last + 1);
    const root = this.stack[0];
    if (root !== undefined) this.reportMissing(root, root.index, root.rule.children.length, last + 1, new Set(['SE']));
    return this.issues;
  }

  private frame(rule: LoopRule, firstCount: number): Frame {
    const counts = new Array<number>(rule.children.length).fill(0);
    counts[0] = firstCount;
    return { rule, index: 0, counts };
  }

  /** `anyVersion`: the finding holds whatever the version, so a fallback check reports it too. */
  private add(issue: Omit<X12Issue, 'groupControl' | 'setControl' | 'setPosition'>, anyVersion = false): void {
    if (this.lenient && !anyVersion && VERSION_DEPENDENT.has(issue.code)) return;
    if (this.issues.length >= MAX_SET_ISSUES) {
      if (!this.truncated) {
        this.truncated = true;
        this.issues.push({ ...issue, code: 'issues_truncated', message: `more than ${MAX_SET_ISSUES} findings; the rest are not listed`, level: 'set', groupControl: this.groupControl, setControl: this.set.controlNumber, setPosition: this.set.position });
      }
      return;
    }
    this.issues.push({ ...issue, groupControl: this.groupControl, setControl: this.set.controlNumber, setPosition: this.set.position });
  }

  private loopId(): string | undefined {
    const top = this.stack[this.stack.length - 1];
    return this.stack.length > 1 ? top?.rule.id : undefined;
  }

  /** Finds the rule the segment matches, searching the innermost open loop first and only forward in each. */
  private locate(id: string): { depth: number; index: number } | undefined {
    for (let depth = this.stack.length - 1; depth >= 0; depth--) {
      const frame = this.stack[depth];
      if (frame === undefined) continue;
      const children = frame.rule.children;
      // Inside a loop its first segment starts a new iteration, which the parent frame handles.
      for (let j = Math.max(frame.index, depth > 0 ? 1 : 0); j < children.length; j++) {
        const child = children[j];
        if (child !== undefined && triggerId(child) === id) return { depth, index: j };
      }
    }
    return undefined;
  }

  private appearsEarlier(id: string): boolean {
    return this.stack.some((frame) => frame.rule.children.some((child, j) => j <= frame.index && triggerId(child) === id));
  }

  private place(segment: Segment): void {
    const { id, position } = segment;
    const found = this.locate(id);
    if (found === undefined) {
      this.misplaced(segment);
      return;
    }
    while (this.stack.length - 1 > found.depth) this.close(this.stack.pop(), position);
    const frame = this.stack[found.depth];
    const child = frame?.rule.children[found.index];
    if (frame === undefined || child === undefined) return;
    this.reportMissing(frame, frame.index, found.index, position);
    frame.index = found.index;
    const count = (frame.counts[found.index] ?? 0) + 1;
    frame.counts[found.index] = count;
    if (child.kind === 'loop') {
      this.stack.push(this.frame(child, 1));
      if (count > child.max) {
        this.add({ position, segmentId: id, code: X12_CODES.loopOverMax, message: `loop ${child.id} repeats more than ${child.max} times`, level: 'segment', loopId: child.id });
      }
    } else if (count > child.max) {
      this.add({ position, segmentId: id, code: X12_CODES.segmentOverMax, message: `segment ${id} used more than ${child.max} times`, level: 'segment', loopId: this.loopId() });
    }
  }

  private misplaced(segment: Segment): void {
    // No AK303 loop id: a misplaced segment belongs to no loop of this set.
    const { id, position } = segment;
    if (!this.schema.ids.has(id)) {
      const known = SEGMENT_ID.test(id) && OTHER_SEGMENTS.has(id);
      this.add({
        position,
        segmentId: id,
        code: known ? X12_CODES.segmentNotInSet : X12_CODES.unrecognizedSegment,
        message: known ? `segment ${id} is not part of transaction set ${this.schema.id}` : `unrecognized segment id '${id}'`,
        level: 'segment',
      });
    } else if (this.appearsEarlier(id)) {
      this.add({ position, segmentId: id, code: X12_CODES.segmentOutOfSequence, message: `segment ${id} is out of sequence`, level: 'segment' });
    } else {
      this.add({ position, segmentId: id, code: X12_CODES.unexpectedSegment, message: `segment ${id} is not expected here`, level: 'segment' });
    }
  }

  private close(frame: Frame | undefined, position: number): void {
    if (frame === undefined) return;
    this.reportMissing(frame, frame.index, frame.rule.children.length, position);
  }

  /** Mandatory children in [from, to) of a frame that were never used. */
  private reportMissing(frame: Frame, from: number, to: number, position: number, skip?: ReadonlySet<string>): void {
    for (let k = from; k < to; k++) {
      const child: StructureRule | undefined = frame.rule.children[k];
      if (child === undefined || child.req !== 'M' || (frame.counts[k] ?? 0) > 0) continue;
      const id = triggerId(child);
      if (skip?.has(id)) continue;
      const loopId = child.kind === 'loop' ? child.id : frame === this.stack[0] ? undefined : frame.rule.id;
      this.add({ position, segmentId: id, code: X12_CODES.mandatorySegmentMissing, message: `mandatory segment ${id} is missing`, level: 'segment', loopId });
    }
  }

  private checkElements(segment: Segment): void {
    const spec = this.schema.elements[segment.id];
    if (spec === undefined) return;
    const { rules } = spec;
    const values = segment.elements;
    const loopId = this.loopId();
    const base = { position: segment.position, segmentId: segment.id, level: 'element' as const, loopId };
    if (values.length > rules.length) {
      this.add({ ...base, element: rules.length + 1, code: X12_CODES.tooManyElements, message: `${segment.id} has ${values.length} elements; at most ${rules.length} are defined`, value: values[rules.length] });
    }
    for (let i = 0; i < rules.length; i++) {
      const rule = rules[i];
      if (rule === undefined) continue;
      const value = values[i] ?? '';
      if (value === '' && rule.req !== 'M') continue;
      // Names and refs are built only for a finding: the happy path of 100,000 PO1s allocates nothing here.
      const elementRef = rule.ref === '-' ? undefined : rule.ref;
      const name = (): string => `${segment.id}${String(i + 1).padStart(2, '0')}`;
      if (value === '') {
        this.add({ ...base, element: i + 1, elementRef, code: X12_CODES.elementMissing, message: `mandatory element ${name()} is missing` });
        continue;
      }
      // Sizes differ between versions; without the version's own table only the value's type is checked.
      const problem = checkElementValue(value, this.lenient ? { ...rule, min: 0, max: UNBOUNDED } : rule);
      const unshaped = rule.type === 'ID' && !EXTERNAL_CODE_ELEMENTS.has(rule.ref) && !isCodeShaped(value);
      if (problem !== undefined && !(unshaped && problem.code === X12_CODES.invalidCode)) {
        this.add({ ...base, element: i + 1, elementRef, code: problem.code, message: `${name()}: ${problem.message}`, value });
      } else if (unshaped) {
        // No list of any version holds it, so a fallback check reports it too.
        const message = `${name()}: '${value}' cannot be a code (codes are upper-case letters and digits)`;
        this.add({ ...base, element: i + 1, elementRef, code: X12_CODES.invalidCode, message, value }, true);
      }
    }
    if (spec.syntax === undefined) return;
    for (const problem of checkSyntaxRules(segment.id, values, spec.syntax)) {
      const rule = rules[problem.element - 1];
      const elementRef = rule === undefined || rule.ref === '-' ? undefined : rule.ref;
      const value = values[problem.element - 1] ?? '';
      const issue = { ...base, element: problem.element, elementRef, code: problem.code, message: problem.message };
      this.add(value === '' ? issue : { ...issue, value });
    }
  }
}

/** GS08 is AN 1/12: no more of it is echoed. */
const GS08_MAX = 12;

/** Numeric form of a GS08 version/release (first six digits), or undefined when GS08 does not start with one. */
function versionNumber(version: string): number | undefined {
  return /^\d{6}/.test(version) ? Number(version.slice(0, 6)) : undefined;
}

/**
 * The table for a set id and GS08 version: the version's own (GS08 004010VICS uses 004010's), else the nearest
 * version's (older on a tie) with `fallback` true; undefined when the gateway has no table for the set id.
 */
export function chooseTable(setId: string, version: string): { schema: TransactionSetSchema; fallback: boolean } | undefined {
  const tables = TABLES[setId];
  const first = tables?.[0];
  if (tables === undefined || first === undefined) return undefined;
  const exact = tables.find((t) => version.startsWith(t.version));
  if (exact !== undefined) return { schema: exact, fallback: false };
  const wanted = versionNumber(version);
  if (wanted === undefined) return { schema: first, fallback: true };
  let best = first;
  for (const t of tables) if (Math.abs(Number(t.version) - wanted) < Math.abs(Number(best.version) - wanted)) best = t;
  return { schema: best, fallback: true };
}

/** Version of a set checked on its own: ST03 when it names one (005010 sets do), else 004010. */
function versionOfSet(set: TransactionSet): string {
  const st03 = set.st[2] ?? '';
  return versionNumber(st03) === undefined ? '004010' : st03;
}

/**
 * Segment-level (AK3) and element-level (AK4) findings of one set against the table of `version` (GS08), and which
 * table that was. A version without a table of its own is checked against the nearest one with only the findings
 * that hold in every version (`table.fallback`); a set id without any table gets no findings and no table.
 */
function checkTransactionSet(set: TransactionSet, opts: { groupControl?: string; version?: string } = {}): SetValidation {
  const version = opts.version ?? versionOfSet(set);
  const chosen = chooseTable(set.id, version);
  if (chosen === undefined) return { issues: [], table: undefined };
  const shown = version.slice(0, GS08_MAX).replace(/[^\x20-\x7E]/g, '?');
  const { schema, fallback } = chosen;
  const table: TableUse = {
    groupControl: opts.groupControl,
    setControl: set.controlNumber,
    setId: set.id,
    position: set.position,
    version: shown,
    table: schema.version,
    fallback,
  };
  if (fallback) {
    table.note = `no ${set.id} table for version '${shown}'; checked envelope and syntax only, against ${schema.version}`;
  }
  const issues = new SetValidator(schema, set, opts.groupControl, fallback).run(readSegments(set));
  return { issues, table };
}

/**
 * checkTransactionSet's findings alone. Pass the group's GS06 so the findings carry it (build997 also matches them
 * by position) and its GS08 so the right version's table is used.
 */
export function validateTransactionSet(set: TransactionSet, groupControl?: string, version?: string): X12Issue[] {
  return checkTransactionSet(set, { groupControl, version }).issues;
}

/** checkTransactionSet for every set of the interchange, each against its group's GS08. */
export function checkInterchange(interchange: Interchange | PartialInterchange): InterchangeValidation {
  const issues: X12Issue[] = [];
  const tables: TableUse[] = [];
  for (const group of interchange.groups) {
    for (const set of group.transactionSets) {
      const result = checkTransactionSet(set, { groupControl: group.controlNumber, version: group.version });
      for (const issue of result.issues) issues.push(issue);
      if (result.table !== undefined) tables.push(result.table);
    }
  }
  return { issues, tables };
}

/** checkInterchange's findings alone. */
export function validateInterchange(interchange: Interchange | PartialInterchange): X12Issue[] {
  return checkInterchange(interchange).issues;
}
