import { readFileSync } from 'node:fs';

/** Reads a hand-written interchange from ./fixtures byte for byte (CR, LF and trailing text preserved). */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'latin1');
}

/** Valid interchanges of the fixture set. */
export const VALID_FIXTURES = [
  '850-4010-single.x12',
  '850-5010-multi.x12',
  '850-multi-group.x12',
  'newline-terminator.x12',
  'unusual-delimiters.x12',
] as const;

/** Every fixture file, valid or not. */
export const ALL_FIXTURES = [
  ...VALID_FIXTURES,
  'control-mismatch.x12',
  'ge-iea-counts-wrong.x12',
  'isa-length.x12',
  'missing-beg.x12',
  'se-count-wrong.x12',
  'stray-segment.x12',
  'truncated-body.x12',
  'truncated-isa.x12',
  'unknown-segment.x12',
] as const;

/** The 004010 ISA line used by most fixtures, for building small inline cases. */
export const ISA_4010 = 'ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *240115*1030*U*00401*000000101*0*P*>~';

/** A one-set 850 around the given body segments, with correct counts unless the caller overrides trailers. */
export function inline850(body: readonly string[], trailers?: { se?: string; ge?: string; iea?: string }): string {
  const st = 'ST*850*0001~';
  const se = trailers?.se ?? `SE*${body.length + 2}*0001~`;
  const ge = trailers?.ge ?? 'GE*1*101~';
  const iea = trailers?.iea ?? 'IEA*1*000000101~';
  return [ISA_4010, 'GS*PO*BUYERCO*TIREGW*20240115*1030*101*X*004010~', st, ...body.map((s) => `${s}~`), se, ge, iea].join('\n');
}
