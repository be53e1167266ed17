import { ackCode } from './x12.ack-codes.js';
import { chooseDelimiters, EchoedChars, scrub } from './x12.delimiters.js';
import { buildInterchange, DEFAULT_DELIMITERS_00401, DEFAULT_DELIMITERS_00501, type Party } from './x12.writer.js';
import type { Delimiters, X12Issue } from './x12.types.js';

/** TA104 Interchange Acknowledgment Code: accepted, accepted with errors noted, rejected. */
export type Ta1Code = 'A' | 'E' | 'R';

/** TA105 Interchange Note Codes (X12 element I18) the gateway uses. */
export const TA1_NOTES = {
  noError: '000',
  controlNumberMismatch: '001',
  controlVersionUnsupported: '003',
  invalidSegmentTerminator: '004',
  invalidVersion: '017',
  invalidControlNumber: '018',
  invalidUsage: '020',
  invalidGroupCount: '021',
  invalidControlStructure: '022',
  prematureEnd: '023',
  invalidContent: '024',
  duplicateControlNumber: '025',
  invalidElementSeparator: '026',
  invalidComponentSeparator: '027',
} as const;

export interface Ta1Input {
  /** ISA01..ISA16 of the interchange being acknowledged, as parsed (`Interchange.isa`, `PartialInterchange.isa`). */
  isa: readonly string[];
  /** TA104 */
  code: Ta1Code;
  /** TA105: three digits, e.g. TA1_NOTES.controlNumberMismatch. */
  noteCode: string;
  /** ISA13 of the TA1's own interchange; the caller owns the counter. */
  controlNumber: number;
  /** ISA05/ISA06 of the TA1 (the inbound's receiver). */
  ourIdentity: Party;
  /** ISA09/ISA10 of the TA1 (UTC). */
  date: Date;
  /** Defaults to * > ~ (plus ^ from ISA12 00402) with a newline after each segment. */
  delimiters?: Delimiters;
}

const ECHO_WIDTH = { qualifier: 2, id: 15 };

/** Outside the X12 basic/extended printable range nothing is echoed: binary bytes become spaces. */
function printable(value: string): string {
  return value.replace(/[^\x20-\x7E]/g, ' ');
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * ISA12 of an acknowledgment (TA1, 997): the inbound's when it is a version X12 defines for the ISA (00200..00801),
 * else 00401. Its ISA11 is 'U' before 00402 and the repetition separator from 00402 on.
 */
export function envelopeVersion(inbound: string): string {
  return /^\d{5}$/.test(inbound) && inbound >= '00200' && inbound <= '00801' ? inbound : '00401';
}

/** Delimiters shaped for an envelope version: a repetition separator from 00402 on, none before. */
export function delimitersFor(version: string, delimiters?: Delimiters): Delimiters {
  const preferred = delimiters ?? (version >= '00402' ? DEFAULT_DELIMITERS_00501 : DEFAULT_DELIMITERS_00401);
  if (version < '00402') return { ...preferred, repetition: null };
  return preferred.repetition === null ? { ...preferred, repetition: DEFAULT_DELIMITERS_00501.repetition } : preferred;
}

/**
 * TA101..TA105 for the inbound ISA: its ISA13, ISA09 and ISA10 echoed (a value that is not a valid control number,
 * date or time becomes zeros or the TA1's own date and time), the code, and the note code as the inbound's ISA12
 * version holds it.
 */
export function ta1Elements(isa: readonly string[], verdict: { code: Ta1Code; noteCode: string }, date: Date): string[] {
  const yymmdd = String(date.getUTCFullYear()).slice(2) + two(date.getUTCMonth() + 1) + two(date.getUTCDate());
  const hhmm = two(date.getUTCHours()) + two(date.getUTCMinutes());
  const inboundControl = isa[12] ?? '';
  const inboundDate = isa[8] ?? '';
  const inboundTime = isa[9] ?? '';
  const version = envelopeVersion(isa[11] ?? '');
  return [
    'TA1',
    /^\d{9}$/.test(inboundControl) ? inboundControl : '000000000',
    /^\d{6}$/.test(inboundDate) ? inboundDate : yymmdd,
    /^\d{4}$/.test(inboundTime) ? inboundTime : hhmm,
    ackCode('I17', verdict.code, version),
    ackCode('I18', verdict.noteCode, version),
  ];
}

/**
 * A TA1 interchange acknowledgment in its own ISA/IEA envelope (no functional group), addressed back to the inbound
 * sender. TA101..TA103 echo the inbound ISA13, ISA09 and ISA10; a value that is not a valid control number, date or
 * time (the reason for some rejections) is replaced by zeros (ISA13) or the TA1's own date and time.
 */
export function buildTa1(input: Ta1Input): string {
  if (!/^\d{3}$/.test(input.noteCode)) throw new Error(`TA105 '${input.noteCode}' must be three digits`);
  const version = envelopeVersion(input.isa[11] ?? '');
  const shaped = delimitersFor(version, input.delimiters);
  const receiverQualifier = printable(input.isa[4] ?? '').trim().slice(0, ECHO_WIDTH.qualifier);
  const receiverId = printable(input.isa[5] ?? '').trim().slice(0, ECHO_WIDTH.id);
  const delimiters = chooseDelimiters(shaped, EchoedChars.of(receiverQualifier, receiverId));

  return buildInterchange(
    {
      sender: input.ourIdentity,
      receiver: { qualifier: scrub(receiverQualifier, delimiters), id: scrub(receiverId, delimiters) },
      controlNumber: input.controlNumber,
      date: input.date,
      version,
      usage: input.isa[14] === 'T' ? 'T' : 'P',
      // A TA1 never asks for a TA1 back (ISA14 0).
      leading: [ta1Elements(input.isa, input, input.date)],
      groups: [],
    },
    delimiters,
    { newline: input.delimiters === undefined },
  );
}

/**
 * TA104/TA105 for what parseX12 found: R with the first interchange-level finding's note code, else A 000. Findings
 * without a TA105 code (not X12 at all) leave nothing to acknowledge: undefined.
 */
export function ta1Verdict(issues: readonly X12Issue[]): { code: Ta1Code; noteCode: string } | undefined {
  const interchange = issues.filter((i) => i.level === 'interchange');
  if (interchange.length === 0) return { code: 'A', noteCode: TA1_NOTES.noError };
  const coded = interchange.find((i) => i.code.startsWith('TA105:'));
  return coded === undefined ? undefined : { code: 'R', noteCode: coded.code.slice('TA105:'.length) };
}
