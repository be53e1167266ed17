import { checkElementValue } from './x12.elements.js';
import { SCHEMA_850 } from './x12.schema-850.js';
import { SCHEMA_997 } from './x12.schema-997.js';
import { triggerId, type LoopRule, type StructureRule, type TransactionSetSchema } from './x12.schema.js';
import { readSegments } from './x12.segments.js';
import { X12_CODES, type Interchange, type PartialInterchange, type Segment, type TransactionSet, type X12Issue } from './x12.types.js';

/** Sets whose contents the gateway checks; other sets (855, 856, 810 inbound, ...) get envelope checks only. */
const SCHEMAS: Readonly<Record<string, TransactionSetSchema>> = { '850': SCHEMA_850, '997': SCHEMA_997 };

/** Segment ids from other common transaction sets: known to X12, just not allowed in this set (AK304 6, not 1). */
const OTHER_SEGMENTS = new Set([
  'ACK', 'AK1', 'AK2', 'AK3', 'AK4', 'AK5', 'AK9', 'BAK', 'BCH', 'BCA', 'BGN', 'BHT', 'BIG', 'BPR', 'BSN', 'CAD', 'CAS', 'CLP', 'CTX',
  'DTP', 'ENT', 'G62', 'HI', 'HL', 'IK3', 'IK4', 'IK5', 'ISS', 'IT1', 'LX', 'N7', 'N8', 'NM1', 'OID', 'PLB', 'POC', 'PRF', 'RMR',
  'SN1', 'SV1', 'SVC', 'TA1', 'TDS', 'TRN', 'W05', 'W06', 'W12', 'W17',
]);

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

  private add(issue: Omit<X12Issue, 'groupControl' | 'setControl'>): void {
    if (this.issues.length >= MAX_SET_ISSUES) {
      if (!this.truncated) {
        this.truncated = true;
        this.issues.push({ ...issue, code: 'issues_truncated', message: `more than ${MAX_SET_ISSUES} findings; the rest are not listed`, level: 'set', groupControl: this.groupControl, setControl: this.set.controlNumber });
      }
      return;
    }
    this.issues.push({ ...issue, groupControl: this.groupControl, setControl: this.set.controlNumber });
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
    rules.forEach((rule, i) => {
      const value = values[i] ?? '';
      const elementRef = rule.ref === '-' ? undefined : rule.ref;
      const name = `${segment.id}${String(i + 1).padStart(2, '0')}`;
      if (value === '') {
        if (rule.req === 'M') this.add({ ...base, element: i + 1, elementRef, code: X12_CODES.elementMissing, message: `mandatory element ${name} is missing` });
        return;
      }
      const problem = checkElementValue(value, rule);
      if (problem !== undefined) this.add({ ...base, element: i + 1, elementRef, code: problem.code, message: `${name}: ${problem.message}`, value });
    });
  }
}

/**
 * Segment-level (AK3) and element-level (AK4) findings for the sets the gateway understands (850, 997);
 * an empty list for any other set, whose envelope parseX12 has already checked.
 * Pass the group's GS06 so the findings carry it (build997 also matches them by position).
 */
export function validateTransactionSet(set: TransactionSet, groupControl?: string): X12Issue[] {
  const schema = SCHEMAS[set.id];
  if (schema === undefined) return [];
  return new SetValidator(schema, set, groupControl).run(readSegments(set));
}

/** validateTransactionSet for every set of the interchange. */
export function validateInterchange(interchange: Interchange | PartialInterchange): X12Issue[] {
  return interchange.groups.flatMap((group) => group.transactionSets.flatMap((set) => validateTransactionSet(set, group.controlNumber)));
}
