import { EnvelopeScanner, unwrapInterchange } from './x12.envelope.js';
import { readIsa, skipLeadingNoise, startsWithIsa } from './x12.isa.js';
import { X12_CODES, type ParseResult, type PartialInterchange, type X12Issue } from './x12.types.js';

export { SUPPORTED_GROUP_VERSIONS } from './x12.envelope.js';
export { readSegments } from './x12.segments.js';
export { validateInterchange, validateTransactionSet } from './x12.validate.js';

/**
 * Parses one X12 interchange, the one starting at `from` (default: the first of the input). Never throws for bad
 * input: `ok` is false when the interchange envelope itself is unusable (not X12, bad ISA, IEA missing or wrong); group
 * and set problems come back as issues with ok true. `next` is where the following interchange of the input starts.
 * Transaction set contents are only counted here; run validateTransactionSet for segment and element checks.
 * Line breaks that are not the segment terminator are not data (files wrapped at 80 or 132 columns): they are left out
 * of the ISA and of every segment, and `next` still points into `input` as given.
 */
export function parseX12(input: string, from = 0): ParseResult {
  const issues: X12Issue[] = [];
  const start = from === 0 ? skipLeadingNoise(input) : from;
  if (!startsWithIsa(input, start)) {
    issues.push({ code: X12_CODES.notX12, message: 'input does not start with an ISA segment', level: 'interchange', position: 1 });
    return { ok: false, issues };
  }
  const header = readIsa(input, start, issues);
  if (header === undefined) return { ok: false, issues };
  const { isa, delimiters } = header;
  const found = issues.length;
  let scanner = new EnvelopeScanner(input, delimiters, isa[12] ?? '', issues);
  scanner.run(header.end);
  if (scanner.wrapped) {
    // Line breaks inside segments are not data: the interchange is read again from a copy without them.
    issues.length = found;
    const unwrapped = unwrapInterchange(input, header.end, delimiters);
    scanner = new EnvelopeScanner(unwrapped.text, delimiters, isa[12] ?? '', issues, unwrapped.after);
    scanner.run(0);
  }
  const envelope: PartialInterchange = {
    isa,
    delimiters,
    senderQualifier: isa[4] ?? '',
    senderId: (isa[5] ?? '').trim(),
    receiverQualifier: isa[6] ?? '',
    receiverId: (isa[7] ?? '').trim(),
    controlNumber: isa[12] ?? '',
    version: isa[11] ?? '',
    usage: isa[14] ?? '',
    groups: scanner.groups,
  };
  const iea = scanner.iea;
  if (iea !== undefined) envelope.iea = iea;
  const next = scanner.next === undefined ? {} : { next: scanner.next };
  if (iea === undefined || issues.some((i) => i.level === 'interchange')) return { ok: false, issues, envelope, ...next };
  return { ok: true, interchange: { ...envelope, iea }, issues, ...next };
}
