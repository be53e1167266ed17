import { setImmediate } from 'node:timers/promises';
import { parseX12 } from './x12.parser.js';
import { type SetLocation, SourceTransactionSet } from './x12.segments.js';
import type { FunctionalGroup, ParseResult, PartialInterchange, TransactionSet, X12Issue } from './x12.types.js';
import { checkInterchange, type TableUse } from './x12.validate.js';

// Parse and check in a worker thread, then the same result on the request thread: the worker sends plain data in
// pieces (set offsets, not segments), and the request thread, which holds the same text, rebuilds the interchange a
// piece at a time, yielding between pieces so no request waits behind a large body. The pieces are JSON as UTF-8 in
// shared memory: posted back as strings, a 40,000-group interchange's 12 MB of them were copied in one ~15 ms step.

/** Groups, or findings, per JSON piece: one piece is read back in about a millisecond. */
const PIECE = 500;

type WireGroup = Omit<FunctionalGroup, 'transactionSets'> & { sets: SetLocation[] };

/** A list in pieces of JSON, UTF-8 in memory shared between threads: piece i is bytes[ends[i - 1] ?? 0, ends[i]). */
export interface WirePieces {
  bytes: Uint8Array;
  ends: number[];
}

/** One interchange of a body as examined in a worker: parse result and findings, in pieces of JSON. */
export interface ExaminedInterchange {
  /** Where the interchange lies in the body's text (the first one with what precedes its ISA). */
  start: number;
  end: number;
  ok: boolean;
  /** Where the following interchange starts, as parseX12 said. */
  next?: number;
  /** The text the sets lie in when it is not the body's: parseX12's copy of a wrapped file without its line breaks. */
  source?: string;
  /** The envelope without its groups, when one could be read. */
  head?: Omit<PartialInterchange, 'groups'>;
  groups: WirePieces;
  parseIssues: WirePieces;
  /** checkInterchange's findings, when there was an envelope to check. */
  checkIssues: WirePieces;
  /** The sets checked against another version's table than their GS08 asks (the rest are left out: nothing to say). */
  fallbackTables: TableUse[];
}

/** A body examined: its interchanges one after another, or `tooMany` when it carries more than the limit. */
export interface ExaminedBody {
  interchanges: ExaminedInterchange[];
  tooMany: boolean;
}

/** What the request thread works on: the parse result over its own text, and the findings of the checks. */
export interface Examined {
  parsed: ParseResult;
  checks: { issues: X12Issue[]; tables: TableUse[] };
  start: number;
  end: number;
}

function pieces<T>(items: readonly T[]): WirePieces {
  const texts: string[] = [];
  for (let i = 0; i < items.length; i += PIECE) texts.push(JSON.stringify(items.slice(i, i + PIECE)));
  const bytes = Buffer.from(new SharedArrayBuffer(texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0)));
  const ends: number[] = [];
  let at = 0;
  for (const t of texts) ends.push((at += bytes.write(t, at)));
  return { bytes, ends };
}

function wireGroup(group: FunctionalGroup): WireGroup {
  const { transactionSets, ...rest } = group;
  return { ...rest, sets: transactionSets.map(locationOf) };
}

function locationOf(set: TransactionSet): SetLocation {
  if (set instanceof SourceTransactionSet) return set.location();
  throw new Error('parseX12 makes every set from the source text');
}

/** Parses every interchange of `text` (at most `maxInterchanges`) and checks each: the CPU-heavy part of an intake. */
export function examineBody(text: string, maxInterchanges: number): ExaminedBody {
  const interchanges: ExaminedInterchange[] = [];
  for (let at: number | undefined = 0; at !== undefined; ) {
    if (interchanges.length === maxInterchanges) return { interchanges, tooMany: true };
    const parsed = parseX12(text, at);
    const envelope = parsed.ok ? parsed.interchange : parsed.envelope;
    const checks = envelope === undefined ? { issues: [], tables: [] } : checkInterchange(envelope);
    const head = envelope === undefined ? undefined : headOf(envelope);
    const source = envelope === undefined ? text : sourceOf(envelope, text);
    interchanges.push({
      start: at,
      end: parsed.next ?? text.length,
      ok: parsed.ok,
      ...(parsed.next === undefined ? {} : { next: parsed.next }),
      ...(head === undefined ? {} : { head }),
      ...(source === text ? {} : { source }),
      groups: pieces((envelope?.groups ?? []).map(wireGroup)),
      parseIssues: pieces(parsed.issues),
      checkIssues: pieces(checks.issues),
      fallbackTables: checks.tables.filter((t) => t.fallback),
    });
    at = parsed.next;
  }
  return { interchanges, tooMany: false };
}

function sourceOf(envelope: PartialInterchange, text: string): string {
  const set = envelope.groups.find((g) => g.transactionSets.length > 0)?.transactionSets[0];
  return set instanceof SourceTransactionSet ? set.sourceText() : text;
}

function headOf(envelope: PartialInterchange): Omit<PartialInterchange, 'groups'> {
  const { groups: _groups, ...head } = envelope;
  return head;
}

async function readPieces<T>(list: WirePieces, each: (item: T) => void): Promise<void> {
  const bytes = Buffer.from(list.bytes.buffer, list.bytes.byteOffset, list.bytes.byteLength);
  let start = 0;
  for (const end of list.ends) {
    for (const item of JSON.parse(bytes.toString('utf8', start, end)) as T[]) each(item);
    start = end;
    await setImmediate();
  }
}

/** The examined interchange over `text` (the same text the worker read), rebuilt a piece at a time. */
export async function hydrate(text: string, wire: ExaminedInterchange): Promise<Examined> {
  const issues: X12Issue[] = [];
  await readPieces<X12Issue>(wire.parseIssues, (i) => issues.push(i));
  const checkIssues: X12Issue[] = [];
  await readPieces<X12Issue>(wire.checkIssues, (i) => checkIssues.push(i));
  const checks = { issues: checkIssues, tables: wire.fallbackTables };
  const range = { start: wire.start, end: wire.end };
  const next = wire.next === undefined ? {} : { next: wire.next };
  if (wire.head === undefined) return { parsed: { ok: false, issues, ...next }, checks, ...range };
  const head = wire.head;
  const source = wire.source ?? text;
  const groups: FunctionalGroup[] = [];
  await readPieces<WireGroup>(wire.groups, ({ sets, ...group }) => {
    groups.push({ ...group, transactionSets: sets.map((s) => new SourceTransactionSet(source, head.delimiters, s)) });
  });
  if (wire.ok && head.iea !== undefined) return { parsed: { ok: true, interchange: { ...head, iea: head.iea, groups }, issues, ...next }, checks, ...range };
  return { parsed: { ok: false, envelope: { ...head, groups }, issues, ...next }, checks, ...range };
}
