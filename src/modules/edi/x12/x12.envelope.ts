import { echoText } from './x12.delimiters.js';
import { startsWithIsa } from './x12.isa.js';
import { SourceTransactionSet, segmentIdAt, splitElements, trimEnd, trimStart } from './x12.segments.js';
import { X12_CODES, type Delimiters, type FunctionalGroup, type X12Issue } from './x12.types.js';

/**
 * Group versions the gateway takes: GS08's version/release prefix (VVVRRR, any industry suffix) from 002000 on.
 * Releases after 008010 (008020, 008030, ... sent in ISA12 00801 envelopes) are taken too: no upper bound.
 */
export const SUPPORTED_GROUP_VERSIONS = { min: '002000', max: '999999' } as const;

/** Versions without a table of their own are still taken; validation checks them against the nearest table. */
export function isSupportedGroupVersion(version: string): boolean {
  if (!/^\d{6}/.test(version) || version.length > 12) return false;
  const release = version.slice(0, 6);
  return release >= SUPPORTED_GROUP_VERSIONS.min && release <= SUPPORTED_GROUP_VERSIONS.max;
}

// Segment kinds the envelope scanner cares about; everything else is counted, never split.
const BODY = 0;
const ISA = 1;
const IEA = 2;
const GS = 3;
const GE = 4;
const ST = 5;
const SE = 6;

const S = 83;
const G = 71;
const I = 73;
const T = 84;
const E = 69;
const A = 65;

/** Stray segments reported per group before the rest are only counted (the group is rejected either way). */
const MAX_STRAY_REPORTS = 20;

/** Classifies the segment in [a, b) by its id with a few charCodeAt reads instead of slicing the id. */
function kindOf(s: string, a: number, b: number, el: number): number {
  const c0 = s.charCodeAt(a);
  if ((c0 !== S && c0 !== G && c0 !== I) || b - a < 2) return BODY;
  const c1 = s.charCodeAt(a + 1);
  const c2 = b - a > 2 ? s.charCodeAt(a + 2) : el;
  if (c2 === el) {
    if (c0 === S) return c1 === T ? ST : c1 === E ? SE : BODY;
    if (c0 === G) return c1 === S ? GS : c1 === E ? GE : BODY;
    return BODY;
  }
  if (c0 !== I || (b - a > 3 && s.charCodeAt(a + 3) !== el)) return BODY;
  if (c1 === S && c2 === A) return ISA;
  if (c1 === E && c2 === A) return IEA;
  return BODY;
}

/** Numeric counters compare by value ("0001" equals "1"); anything else must match exactly. */
function sameNumber(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) === Number(b);
  return a === b;
}

function isCount(value: string | undefined, count: number): boolean {
  return value !== undefined && /^\d+$/.test(value) && Number(value) === count;
}

interface OpenSet {
  id: string;
  controlNumber: string;
  st: string[];
  position: number;
  start: number;
  end: number;
  count: number;
}

/** Where the input goes on after the text scanned, when that text is an unwrapped copy of part of it. */
export interface Continuation {
  source: string;
  /** Index in `source` just after the copied part: after the IEA's terminator, or the next interchange's ISA. */
  from: number;
}

/**
 * Walks the segments after the ISA once, checking envelopes and recording where each set's text lies.
 * A line break inside a segment (a file wrapped at 80 or 132 columns) stops the walk with `wrapped` set, unless line
 * breaks are the segment terminator: the caller then scans `unwrapInterchange`'s copy instead.
 */
export class EnvelopeScanner {
  readonly groups: FunctionalGroup[] = [];
  iea: string[] | undefined;
  /** Where the next interchange of the body starts (its ISA), when another follows this one. */
  next: number | undefined;
  /** A segment holds a line break that is not its terminator: nothing this scanner found counts. */
  wrapped = false;
  private group: FunctionalGroup | undefined;
  private groupSetControls = new Set<string>();
  private readonly groupControls = new Set<string>();
  private set: OpenSet | undefined;
  private orphanSet = false;
  private strayReported = 0;
  private strayDropped = 0;

  constructor(
    private readonly source: string,
    private readonly delimiters: Delimiters,
    private readonly isaControl: string,
    private readonly issues: X12Issue[],
    /** Set when `source` is an unwrapped copy: the raw input after it (where a following interchange is looked for). */
    private readonly after?: Continuation,
  ) {}

  run(from: number): void {
    const s = this.source;
    const len = s.length;
    const term = this.delimiters.segment;
    const el = this.delimiters.element.charCodeAt(0);
    const detectWraps = this.after === undefined && term !== '\n' && term !== '\r';
    // The next CR and LF at or after the segment being read; each search starts past the last, so all of them cost one pass.
    let cr = -1;
    let lf = -1;
    let pos = from;
    let position = 1;
    while (pos < len) {
      let stop = s.indexOf(term, pos);
      if (stop === -1) stop = len;
      const a = trimStart(s, pos, stop);
      const b = trimEnd(s, a, stop);
      pos = stop + 1;
      if (a === b) continue;
      if (detectWraps) {
        if (cr < a) cr = s.indexOf('\r', a) === -1 ? len : s.indexOf('\r', a);
        if (lf < a) lf = s.indexOf('\n', a) === -1 ? len : s.indexOf('\n', a);
        if (cr < b || lf < b) {
          this.wrapped = true;
          return;
        }
      }
      position++;
      const kind = kindOf(s, a, b, el);
      if (kind === BODY) {
        const set = this.set;
        if (set !== undefined) {
          set.count++;
          set.end = b;
        } else if (!this.orphanSet) {
          this.stray(a, b, position);
        }
        continue;
      }
      if (kind === ST) this.onSt(a, b, position);
      else if (kind === SE) this.onSe(a, b, position);
      else if (kind === GS) this.onGs(a, b, position);
      else if (kind === GE) this.onGe(a, b, position);
      else if (kind === IEA) {
        this.onIea(a, b, position);
        this.afterIea(pos, position + 1);
        return;
      } else {
        // This interchange has no IEA; the one starting here is read on its own.
        this.closeOpen(position);
        this.interchangeIssue(X12_CODES.prematureEnd, 'interchange trailer IEA is missing before the next ISA', position, 'IEA');
        // In an unwrapped copy this ISA is a marker of where the raw input's next interchange starts.
        this.next = this.after?.from ?? a;
        return;
      }
    }
    this.closeOpen(position + 1);
    this.interchangeIssue(X12_CODES.prematureEnd, 'interchange trailer IEA is missing', position + 1, 'IEA');
  }

  private elements(a: number, b: number): string[] {
    return splitElements(this.source, a, b, this.delimiters.element);
  }

  private interchangeIssue(code: string, message: string, position: number, segmentId: string | undefined, element?: number, value?: string): void {
    this.issues.push({ position, segmentId, element, code, message, level: 'interchange', value });
  }

  private groupIssue(code: string, message: string, position: number, segmentId: string | undefined, element?: number, value?: string): void {
    const group = this.group;
    this.issues.push({ position, segmentId, element, code, message, level: 'group', groupControl: group?.controlNumber, groupPosition: group?.position, value });
  }

  private setIssue(set: OpenSet, code: string, message: string, position: number, segmentId: string, element?: number, value?: string): void {
    const group = this.group;
    this.issues.push({
      position, segmentId, element, code, message, level: 'set', value,
      groupControl: group?.controlNumber, groupPosition: group?.position, setControl: set.controlNumber, setPosition: set.position,
    });
  }

  /** A segment that is not inside ST..SE: the group (or, outside any group, the interchange) is malformed. */
  private stray(a: number, b: number, position: number): void {
    // A TA1 (the partner acknowledging one of our interchanges) sits between the ISA and the first GS.
    if (this.group === undefined && this.groups.length === 0 && segmentIdAt(this.source, a, b, this.delimiters.element) === 'TA1') return;
    if (this.strayReported >= MAX_STRAY_REPORTS) {
      this.strayDropped++;
      return;
    }
    this.strayReported++;
    const id = segmentIdAt(this.source, a, b, this.delimiters.element);
    if (this.group !== undefined) {
      this.groupIssue(X12_CODES.segmentOutsideSet, `segment ${echoText(id)} is outside any ST/SE transaction set`, position, id);
    } else {
      this.interchangeIssue(X12_CODES.invalidContent, `segment ${echoText(id)} is outside any GS/GE functional group`, position, id);
    }
  }

  private flushStray(position: number): void {
    if (this.strayDropped === 0) return;
    const message = `${this.strayDropped} more segments outside transaction sets`;
    if (this.group !== undefined) this.groupIssue(X12_CODES.segmentOutsideSet, message, position, undefined);
    else this.interchangeIssue(X12_CODES.invalidContent, message, position, undefined);
    this.strayDropped = 0;
  }

  private onSt(a: number, b: number, position: number): void {
    if (this.set !== undefined) this.closeSetWithoutTrailer(position);
    const st = this.elements(a, b);
    if (this.group === undefined) {
      this.interchangeIssue(X12_CODES.invalidContent, 'transaction set ST outside any GS/GE functional group', position, 'ST');
      this.orphanSet = true;
      return;
    }
    const set: OpenSet = { id: st[0] ?? '', controlNumber: st[1] ?? '', st, position, start: a, end: b, count: 1 };
    this.set = set;
    if (!/^\d{3}$/.test(set.id)) {
      this.setIssue(set, X12_CODES.setIdInvalid, `ST01 '${echoText(set.id)}' is not a transaction set identifier`, position, 'ST', 1, set.id);
    }
    if (!/^[^\s]{4,9}$/.test(set.controlNumber)) {
      this.setIssue(set, X12_CODES.setControlInvalid, `ST02 '${echoText(set.controlNumber)}' must be 4 to 9 characters`, position, 'ST', 2, set.controlNumber);
    } else if (this.groupSetControls.has(set.controlNumber)) {
      this.setIssue(set, X12_CODES.setControlNotUnique, `ST02 ${echoText(set.controlNumber)} is used twice in the group`, position, 'ST', 2, set.controlNumber);
    }
    this.groupSetControls.add(set.controlNumber);
  }

  private onSe(a: number, b: number, position: number): void {
    const set = this.set;
    if (set === undefined) {
      if (this.orphanSet) this.orphanSet = false;
      else this.stray(a, b, position);
      return;
    }
    set.count++;
    set.end = b;
    const se = this.elements(a, b);
    if (!isCount(se[0], set.count)) {
      this.setIssue(set, X12_CODES.setSegmentCountMismatch, `SE01 says ${echoText(se[0] ?? '(missing)')} segments; the set has ${set.count}`, position, 'SE', 1, se[0]);
    }
    if (se[1] !== set.controlNumber) {
      this.setIssue(set, X12_CODES.setControlMismatch, `SE02 ${echoText(se[1] ?? '(missing)')} does not match ST02 ${echoText(set.controlNumber)}`, position, 'SE', 2, se[1]);
    }
    this.closeSet(set, se);
  }

  private onGs(a: number, b: number, position: number): void {
    if (this.set !== undefined) this.closeSetWithoutTrailer(position);
    if (this.group !== undefined) this.closeGroupWithoutTrailer(position);
    this.flushStray(position);
    this.orphanSet = false;
    const gs = this.elements(a, b);
    const group: FunctionalGroup = {
      gs,
      functionalId: gs[0] ?? '',
      controlNumber: gs[5] ?? '',
      version: gs[7] ?? '',
      position,
      transactionSets: [],
      ge: undefined,
    };
    this.group = group;
    this.groupSetControls = new Set();
    this.strayReported = 0;
    if (!/^\d{1,9}$/.test(group.controlNumber)) {
      this.groupIssue(X12_CODES.groupControlSyntax, `GS06 '${echoText(group.controlNumber)}' is not a 1-9 digit control number`, position, 'GS', 6, group.controlNumber);
    } else if (this.groupControls.has(group.controlNumber)) {
      this.groupIssue(X12_CODES.groupControlNotUnique, `GS06 ${echoText(group.controlNumber)} is used twice in the interchange`, position, 'GS', 6, group.controlNumber);
    }
    this.groupControls.add(group.controlNumber);
    if (!isSupportedGroupVersion(group.version)) {
      this.groupIssue(X12_CODES.groupVersionUnsupported, `GS08 version '${echoText(group.version)}' is not supported`, position, 'GS', 8, group.version);
    }
  }

  private onGe(a: number, b: number, position: number): void {
    if (this.set !== undefined) this.closeSetWithoutTrailer(position);
    this.orphanSet = false;
    const group = this.group;
    if (group === undefined) {
      this.flushStray(position);
      this.interchangeIssue(X12_CODES.invalidContent, 'GE without a GS', position, 'GE');
      return;
    }
    this.flushStray(position);
    const ge = this.elements(a, b);
    const count = group.transactionSets.length;
    if (!isCount(ge[0], count)) {
      this.groupIssue(X12_CODES.groupSetCountMismatch, `GE01 says ${echoText(ge[0] ?? '(missing)')} transaction sets; the group has ${count}`, position, 'GE', 1, ge[0]);
    }
    if (!sameNumber(ge[1], group.controlNumber)) {
      this.groupIssue(X12_CODES.groupControlMismatch, `GE02 ${echoText(ge[1] ?? '(missing)')} does not match GS06 ${echoText(group.controlNumber)}`, position, 'GE', 2, ge[1]);
    }
    group.ge = ge;
    this.closeGroup(group);
  }

  private onIea(a: number, b: number, position: number): void {
    this.closeOpen(position);
    const iea = this.elements(a, b);
    this.iea = iea;
    if (!isCount(iea[0], this.groups.length)) {
      this.interchangeIssue(X12_CODES.invalidGroupCount, `IEA01 says ${echoText(iea[0] ?? '(missing)')} functional groups; the interchange has ${this.groups.length}`, position, 'IEA', 1, iea[0]);
    }
    if (!sameNumber(iea[1], this.isaControl)) {
      this.interchangeIssue(X12_CODES.interchangeControlMismatch, `IEA02 ${echoText(iea[1] ?? '(missing)')} does not match ISA13 ${this.isaControl}`, position, 'IEA', 2, iea[1]);
    }
  }

  /** After the IEA comes whitespace, or the ISA of the next interchange in the body; anything else is invalid content. */
  private afterIea(pos: number, position: number): void {
    const s = this.after?.source ?? this.source;
    for (let i = this.after?.from ?? pos; i < s.length; i++) {
      const code = s.charCodeAt(i);
      if (code !== 32 && code !== 9 && code !== 10 && code !== 13 && s[i] !== this.delimiters.segment) {
        if (startsWithIsa(s, i)) {
          this.next = i;
          return;
        }
        this.interchangeIssue(X12_CODES.invalidContent, 'content after the IEA trailer', position, segmentIdAt(s, i, Math.min(s.length, i + 4), this.delimiters.element));
        return;
      }
    }
  }

  private closeOpen(position: number): void {
    if (this.set !== undefined) this.closeSetWithoutTrailer(position);
    if (this.group !== undefined) this.closeGroupWithoutTrailer(position);
    this.flushStray(position);
    this.orphanSet = false;
  }

  private closeSetWithoutTrailer(position: number): void {
    const set = this.set;
    if (set === undefined) return;
    this.setIssue(set, X12_CODES.setTrailerMissing, `transaction set ${echoText(set.id)} ${echoText(set.controlNumber)} has no SE trailer`, position, 'SE');
    this.closeSet(set, undefined);
  }

  private closeSet(set: OpenSet, se: string[] | undefined): void {
    this.set = undefined;
    const group = this.group;
    if (group === undefined) return;
    group.transactionSets.push(new SourceTransactionSet(this.source, this.delimiters, { ...set, se, segmentCount: set.count }));
  }

  private closeGroupWithoutTrailer(position: number): void {
    const group = this.group;
    if (group === undefined) return;
    this.flushStray(position);
    this.groupIssue(X12_CODES.groupTrailerMissing, `functional group ${echoText(group.controlNumber)} has no GE trailer`, position, 'GE');
    this.closeGroup(group);
  }

  private closeGroup(group: FunctionalGroup): void {
    this.groups.push(group);
    this.group = undefined;
    this.strayReported = 0;
  }
}

/**
 * The interchange whose body starts at `from`, without the line breaks inside its segments (a file wrapped at 80 or
 * 132 columns; the segment terminator is not a line break): a copy from the body's first segment through the IEA and
 * its terminator, or up to the next ISA (copied as a bare `ISA` marker), or to the end of the input. `after` says
 * where the raw input goes on. Layout between segments is dropped with the breaks; nothing else changes.
 */
export function unwrapInterchange(input: string, from: number, delimiters: Delimiters): { text: string; after: Continuation } {
  const { segment: term, element } = delimiters;
  const parts: string[] = [];
  let pos = from;
  while (pos < input.length) {
    let stop = input.indexOf(term, pos);
    if (stop === -1) stop = input.length;
    const raw = input.slice(pos, stop);
    const segment = raw.replace(/[\r\n]/g, '');
    const id = segment.replace(/^[ \t]+/, '');
    if (id.startsWith(`ISA${element}`)) {
      parts.push(`ISA${element}`);
      return { text: parts.join(term) + term, after: { source: input, from: pos + raw.search(/[^ \t\r\n]/) } };
    }
    parts.push(segment);
    pos = stop + 1;
    if (id.startsWith(`IEA${element}`)) return { text: parts.join(term) + term, after: { source: input, from: pos } };
  }
  return { text: parts.join(term), after: { source: input, from: input.length } };
}
