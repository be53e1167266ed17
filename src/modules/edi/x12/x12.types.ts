/** Separators of one interchange; `repetition` is null before ISA12 version 00402 (ISA11 is then the standards id 'U'). */
export interface Delimiters {
  element: string;
  component: string;
  repetition: string | null;
  segment: string;
}

/** One segment. `elements[0]` is element 01 (the id is not repeated there); `position` is 1-based in the interchange (ISA = 1). */
export interface Segment {
  id: string;
  elements: string[];
  position: number;
}

/** One ST..SE transaction set. Envelope fields are read at parse time; `segments` is materialized from the source text on first access. */
export interface TransactionSet {
  /** ST01 */
  readonly id: string;
  /** ST02 */
  readonly controlNumber: string;
  /** ST01..ST03 */
  readonly st: string[];
  /** SE01..SE02, undefined when the trailer is missing */
  readonly se: string[] | undefined;
  /** Interchange position of the ST segment. */
  readonly position: number;
  /** Segments actually present from ST to SE inclusive (what SE01 must equal). */
  readonly segmentCount: number;
  /** ST..SE inclusive (ST..last segment when SE is missing). */
  readonly segments: readonly Segment[];
}

export interface FunctionalGroup {
  /** GS01..GS08 */
  gs: string[];
  /** GS01 */
  functionalId: string;
  /** GS06 */
  controlNumber: string;
  /** GS08 */
  version: string;
  /** Interchange position of the GS segment. */
  position: number;
  transactionSets: TransactionSet[];
  /** GE01..GE02, undefined when the trailer is missing */
  ge: string[] | undefined;
}

export interface Interchange {
  /** ISA01..ISA16 exactly as sent (fixed-width, space padded). */
  isa: string[];
  delimiters: Delimiters;
  senderQualifier: string;
  /** ISA06 with the padding trimmed. */
  senderId: string;
  receiverQualifier: string;
  /** ISA08 with the padding trimmed. */
  receiverId: string;
  /** ISA13 */
  controlNumber: string;
  /** ISA12 */
  version: string;
  /** ISA15 */
  usage: string;
  groups: FunctionalGroup[];
  /** IEA01..IEA02 */
  iea: string[];
}

/** What parseX12 could read of an interchange it rejects: everything but a trustworthy trailer. */
export type PartialInterchange = Omit<Interchange, 'iea'> & { iea?: string[] };

type X12IssueLevel = 'interchange' | 'group' | 'set' | 'segment' | 'element';

/**
 * One finding. `code` is `<X12 element>:<value>` so it maps straight onto an acknowledgment:
 * 'TA105:001' (interchange), 'AK905:5' (group), 'AK502:4' (set), 'AK304:1' (segment), 'AK403:7' (element);
 * the few findings X12 has no code for use a plain word ('not_x12', 'segment_outside_set', ...).
 */
export interface X12Issue {
  /** 1-based segment position in the interchange. */
  position?: number;
  segmentId?: string;
  /** 1-based element number (BEG05 -> 5). */
  element?: number;
  code: string;
  message: string;
  level: X12IssueLevel;
  groupControl?: string;
  setControl?: string;
  /**
   * Interchange position of the GS of the group the finding belongs to. Control numbers may repeat (a reused GS06 is
   * itself a finding), positions never do: findings are filed under their group by this when it is given.
   */
  groupPosition?: number;
  /** Interchange position of the ST of the set the finding belongs to (ST02 may repeat within a group). */
  setPosition?: number;
  /** Loop the segment belongs to (AK303), e.g. 'PO1'. */
  loopId?: string;
  /** X12 data element reference number (AK402), e.g. '373'. */
  elementRef?: string;
  /** The offending element value (AK404). */
  value?: string;
}

/** `next`: where the input's following interchange starts (its ISA), when one follows. */
export type ParseResult =
  | { ok: true; interchange: Interchange; issues: X12Issue[]; next?: number }
  | { ok: false; issues: X12Issue[]; envelope?: PartialInterchange; next?: number };

/** Issue codes the library emits; kept together so tests and callers do not retype strings. */
export const X12_CODES = {
  notX12: 'not_x12',
  segmentOutsideSet: 'segment_outside_set',
  interchangeControlMismatch: 'TA105:001',
  controlVersionUnsupported: 'TA105:003',
  invalidSegmentTerminator: 'TA105:004',
  invalidVersion: 'TA105:017',
  invalidControlNumber: 'TA105:018',
  invalidGroupCount: 'TA105:021',
  invalidControlStructure: 'TA105:022',
  prematureEnd: 'TA105:023',
  invalidContent: 'TA105:024',
  invalidComponentSeparator: 'TA105:027',
  invalidUsage: 'TA105:020',
  groupVersionUnsupported: 'AK905:2',
  groupTrailerMissing: 'AK905:3',
  groupControlMismatch: 'AK905:4',
  groupSetCountMismatch: 'AK905:5',
  groupControlSyntax: 'AK905:6',
  groupControlNotUnique: 'AK905:19',
  setTrailerMissing: 'AK502:2',
  setControlMismatch: 'AK502:3',
  setSegmentCountMismatch: 'AK502:4',
  setIdInvalid: 'AK502:6',
  setControlInvalid: 'AK502:7',
  setControlNotUnique: 'AK502:23',
  unrecognizedSegment: 'AK304:1',
  unexpectedSegment: 'AK304:2',
  mandatorySegmentMissing: 'AK304:3',
  loopOverMax: 'AK304:4',
  segmentOverMax: 'AK304:5',
  segmentNotInSet: 'AK304:6',
  segmentOutOfSequence: 'AK304:7',
  elementMissing: 'AK403:1',
  conditionalElementMissing: 'AK403:2',
  tooManyElements: 'AK403:3',
  elementTooShort: 'AK403:4',
  elementTooLong: 'AK403:5',
  invalidCharacter: 'AK403:6',
  invalidCode: 'AK403:7',
  invalidDate: 'AK403:8',
  invalidTime: 'AK403:9',
  exclusionViolated: 'AK403:10',
} as const;
