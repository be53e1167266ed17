import { pace } from '../../../platform/core/pacer.js';
import { ISA_WIDTHS, isUsableDelimiter } from './x12.isa.js';
import type { Delimiters } from './x12.types.js';

/** An element value; an array is a composite whose parts are joined with the component separator. */
export type X12Value = string | readonly string[];

/** A transaction set to write: ST elements and the body between ST and SE; SE is computed. */
interface SetInput {
  /** ST01..ST03 */
  st: readonly string[];
  /** Segments between ST and SE, each an element array with the segment id first. */
  segments: readonly (readonly X12Value[])[];
}

interface GroupInput {
  /** GS01..GS08; GE is computed from GS06 and the set count. */
  gs: readonly string[];
  sets: readonly SetInput[];
}

export interface InterchangeInput {
  /** ISA01..ISA16 unpadded; ISA11 and ISA16 are taken from the delimiters, IEA is computed from ISA13. */
  isa: readonly string[];
  /** Interchange-level segments between the ISA and the first GS (a TA1). */
  leading?: readonly (readonly X12Value[])[];
  groups: readonly GroupInput[];
}

interface WriteOptions {
  /** Put a line break after every segment terminator (readable files; parsers tolerate it). */
  newline?: boolean;
}

export const DEFAULT_DELIMITERS_00401: Delimiters = { element: '*', component: '>', repetition: null, segment: '~' };
export const DEFAULT_DELIMITERS_00501: Delimiters = { element: '*', component: '>', repetition: '^', segment: '~' };

/** Throws when the delimiters cannot produce a parseable interchange (writer input errors are programming errors). */
function assertDelimiters(delimiters: Delimiters): void {
  const all = [delimiters.element, delimiters.component, delimiters.segment, ...(delimiters.repetition === null ? [] : [delimiters.repetition])];
  for (const ch of all) {
    const usable = isUsableDelimiter(ch) || (ch === delimiters.segment && (ch === '\n' || ch === '\r'));
    if (!usable) throw new Error(`X12 delimiter '${ch}' must be one non-alphanumeric, non-space character`);
  }
  if (new Set(all).size !== all.length) throw new Error('X12 delimiters must be distinct');
}

/** Builds a checker that throws if a value would change the interchange structure. */
function valueGuard(delimiters: Delimiters): (value: string, where: string, index?: number) => string {
  const forbidden = [delimiters.element, delimiters.component, delimiters.segment, '\r', '\n', ...(delimiters.repetition === null ? [] : [delimiters.repetition])];
  return (value, where, index) => {
    for (const ch of forbidden) {
      if (!value.includes(ch)) continue;
      // The element's name is spelled out only here: a large document must not build one string per value it writes.
      const name = index === undefined || index === 0 ? where : `${where}${String(index).padStart(2, '0')}`;
      throw new Error(`X12 value ${JSON.stringify(value)} in ${name} contains the delimiter ${JSON.stringify(ch)}`);
    }
    return value;
  };
}

/** Pads ISA fields to their fixed widths: numeric control numbers with zeros, everything else with spaces. */
function isaField(value: string, index: number): string {
  const width = ISA_WIDTHS[index] ?? 0;
  if (value.length > width) throw new Error(`ISA${String(index + 1).padStart(2, '0')} '${value}' is longer than ${width}`);
  return index === 12 && /^\d+$/.test(value) ? value.padStart(width, '0') : value.padEnd(width, ' ');
}

/** Writes an interchange, computing SE01, GE01 and IEA01 and the trailers' control numbers. */
export function writeX12(input: InterchangeInput, delimiters: Delimiters, opts: WriteOptions = {}): string {
  const parts: string[] = [];
  for (const part of x12Parts(input, delimiters, opts)) parts.push(part);
  return parts.join('');
}

/** Segments writeX12Paced joins in one step. */
const JOIN_CHUNK = 4096;

/** writeX12 for a large interchange (a 997 reply to 40,000 groups), yielding to the event loop every few milliseconds (pace). */
export async function writeX12Paced(input: InterchangeInput, delimiters: Delimiters, opts: WriteOptions = {}): Promise<string> {
  // Joined a few thousand segments at a time: one join of a 40,000-group 997's segments is ~20 ms without a yield.
  const chunks: string[] = [];
  let parts: string[] = [];
  for (const part of x12Parts(input, delimiters, opts)) {
    parts.push(part);
    if (parts.length === JOIN_CHUNK) {
      chunks.push(parts.join(''));
      parts = [];
    }
    await pace();
  }
  chunks.push(parts.join(''));
  return chunks.join('');
}

/** The interchange's segments as text, one at a time, checked as they are written. */
function* x12Parts(input: InterchangeInput, delimiters: Delimiters, opts: WriteOptions): Generator<string> {
  assertDelimiters(delimiters);
  const guard = valueGuard(delimiters);
  const { element, segment } = delimiters;
  const version = input.isa[11] ?? '';
  if (delimiters.repetition !== null && version < '00402') {
    throw new Error(`ISA12 ${version} has no repetition separator; use repetition: null`);
  }
  const lineBreak = opts.newline === true && segment !== '\n' && segment !== '\r' ? '\n' : '';
  const end = segment + lineBreak;
  const text = (elements: readonly X12Value[], where: string): string => {
    const values = elements.map((v, i) => {
      if (typeof v === 'string') return guard(v, where, i);
      let parts = v.length;
      while (parts > 0 && v[parts - 1] === '') parts--;
      return v.slice(0, parts).map((c) => guard(c, where, i)).join(delimiters.component);
    });
    let last = values.length;
    // X12 omits trailing empty elements.
    while (last > 1 && values[last - 1] === '') last--;
    const id = typeof elements[0] === 'string' ? elements[0] : '';
    if (!/^[A-Z][A-Z0-9]{1,2}$/.test(id)) throw new Error(`X12 segment id '${id}' is invalid`);
    return values.slice(0, last).join(element) + end;
  };

  if (input.isa.length !== 16) throw new Error(`ISA needs 16 elements; got ${input.isa.length}`);
  const isa = input.isa.map((v, i) => {
    if (i === 10) return delimiters.repetition ?? (v === '' ? 'U' : v);
    if (i === 15) return delimiters.component;
    return isaField(guard(v, `ISA${String(i + 1).padStart(2, '0')}`), i);
  });
  yield ['ISA', ...isa].join(element) + end;
  for (const segment of input.leading ?? []) yield text(segment, typeof segment[0] === 'string' ? segment[0] : '');
  for (const group of input.groups) {
    yield text(['GS', ...group.gs], 'GS');
    for (const set of group.sets) {
      yield text(['ST', ...set.st], 'ST');
      for (const body of set.segments) yield text(body, typeof body[0] === 'string' ? body[0] : '');
      yield text(['SE', String(set.segments.length + 2), set.st[1] ?? ''], 'SE');
    }
    yield text(['GE', String(group.sets.length), group.gs[5] ?? ''], 'GE');
  }
  yield text(['IEA', String(input.groups.length), isa[12] ?? ''], 'IEA');
}

export interface Party {
  qualifier: string;
  id: string;
}

export interface BuildSet {
  id: string;
  controlNumber: number | string;
  /** ST03 implementation convention reference (005010 only). */
  implementationReference?: string;
  /** Segments between ST and SE, each an element array with the segment id first. */
  segments: readonly (readonly X12Value[])[];
}

export interface BuildGroup {
  functionalId: string;
  senderCode: string;
  receiverCode: string;
  controlNumber: number;
  /** GS08, e.g. '004010' or '005010' (a 997 carries the version of the group it acknowledges). */
  version: string;
  sets: readonly BuildSet[];
}

export interface BuildInterchangeInput {
  sender: Party;
  receiver: Party;
  controlNumber: number;
  date: Date;
  /** ISA12, '00200'..'00801': ISA11 is 'U' before 00402 and the repetition separator from 00402 on. */
  version: string;
  usage: 'P' | 'T';
  /** ISA14: ask the receiver for a TA1. */
  acknowledgmentRequested?: boolean;
  /** Interchange-level segments between the ISA and the first GS (a TA1). */
  leading?: readonly (readonly X12Value[])[];
  groups: readonly BuildGroup[];
}

const two = (n: number): string => String(n).padStart(2, '0');

/** Interchange and group dates are written in UTC so the same Date gives the same bytes on every host. */
function dateParts(date: Date): { yymmdd: string; ccyymmdd: string; hhmm: string } {
  const ccyy = String(date.getUTCFullYear()).padStart(4, '0');
  const mmdd = two(date.getUTCMonth() + 1) + two(date.getUTCDate());
  return { yymmdd: ccyy.slice(2) + mmdd, ccyymmdd: ccyy + mmdd, hhmm: two(date.getUTCHours()) + two(date.getUTCMinutes()) };
}

function controlNumber(n: number, max: number, what: string): string {
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${what} ${n} must be an integer from 1 to ${max}`);
  return String(n);
}

/** Builds a complete interchange from business-level input; default delimiters are * > ^ (from 00402) ~ with newlines. */
export function buildInterchange(spec: BuildInterchangeInput, delimiters?: Delimiters, opts?: WriteOptions): string {
  const { input, chosen } = interchangeInput(spec, delimiters);
  return writeX12(input, chosen, { newline: opts?.newline ?? delimiters === undefined });
}

/** buildInterchange for a large interchange, yielding while it writes (writeX12Paced). */
export function buildInterchangePaced(spec: BuildInterchangeInput, delimiters?: Delimiters, opts?: WriteOptions): Promise<string> {
  const { input, chosen } = interchangeInput(spec, delimiters);
  return writeX12Paced(input, chosen, { newline: opts?.newline ?? delimiters === undefined });
}

function interchangeInput(spec: BuildInterchangeInput, delimiters?: Delimiters): { input: InterchangeInput; chosen: Delimiters } {
  const chosen = delimiters ?? (spec.version >= '00402' ? DEFAULT_DELIMITERS_00501 : DEFAULT_DELIMITERS_00401);
  const { yymmdd, ccyymmdd, hhmm } = dateParts(spec.date);
  const isa = [
    '00', '', '00', '',
    spec.sender.qualifier, spec.sender.id, spec.receiver.qualifier, spec.receiver.id,
    yymmdd, hhmm, 'U', spec.version,
    controlNumber(spec.controlNumber, 999_999_999, 'ISA13').padStart(9, '0'),
    spec.acknowledgmentRequested === true ? '1' : '0', spec.usage, chosen.component,
  ];
  const groups = spec.groups.map((g): GroupInput => ({
    gs: [g.functionalId, g.senderCode, g.receiverCode, ccyymmdd, hhmm, controlNumber(g.controlNumber, 999_999_999, 'GS06'), 'X', g.version],
    sets: g.sets.map((s): SetInput => {
      const control = typeof s.controlNumber === 'number' ? controlNumber(s.controlNumber, 999_999_999, 'ST02').padStart(4, '0') : s.controlNumber;
      const st = s.implementationReference === undefined ? [s.id, control] : [s.id, control, s.implementationReference];
      return { st, segments: s.segments };
    }),
  }));
  return { input: { isa, groups, ...(spec.leading === undefined ? {} : { leading: spec.leading }) }, chosen };
}
