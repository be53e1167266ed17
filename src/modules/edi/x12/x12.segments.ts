import type { Delimiters, Segment, TransactionSet } from './x12.types.js';

const CR = 13;
const LF = 10;
const SPACE = 32;
const TAB = 9;

/** True for the line breaks tolerated around segment terminators. */
function isLineBreak(code: number): boolean {
  return code === LF || code === CR;
}

/** Whitespace that may sit between a segment terminator and the next segment id ("~ \n", "~\r\n", indentation). */
function isLayoutSpace(code: number): boolean {
  return code === LF || code === CR || code === SPACE || code === TAB;
}

/**
 * First index of the segment body in [a, b) once layout left over from "~\r\n", "~ \n" or indented files is skipped.
 * A segment id never starts with whitespace, so this eats no data; spaces inside and at the end of elements are kept.
 */
export function trimStart(source: string, a: number, b: number): number {
  while (a < b && isLayoutSpace(source.charCodeAt(a))) a++;
  return a;
}

/** End index (exclusive) of the segment body in [a, b) without trailing CR/LF. */
export function trimEnd(source: string, a: number, b: number): number {
  while (b > a && isLineBreak(source.charCodeAt(b - 1))) b--;
  return b;
}

/** Elements after the id of the segment in [a, b); one slice and one split, no per-char work. */
export function splitElements(source: string, a: number, b: number, element: string): string[] {
  const idEnd = source.indexOf(element, a);
  if (idEnd === -1 || idEnd >= b) return [];
  return source.slice(idEnd + 1, b).split(element);
}

/** Segment id of the segment in [a, b). */
export function segmentIdAt(source: string, a: number, b: number, element: string): string {
  const idEnd = source.indexOf(element, a);
  return source.slice(a, idEnd === -1 || idEnd > b ? b : idEnd);
}

/** Materializes the segments stored in source[start, end); positions count from firstPosition like the parser does. */
function scanSegments(
  source: string,
  start: number,
  end: number,
  delimiters: Delimiters,
  firstPosition: number,
): Segment[] {
  const out: Segment[] = [];
  const { segment: term, element } = delimiters;
  let pos = start;
  let position = firstPosition;
  while (pos < end) {
    let stop = source.indexOf(term, pos);
    if (stop === -1 || stop > end) stop = end;
    const a = trimStart(source, pos, stop);
    const b = trimEnd(source, a, stop);
    pos = stop + 1;
    if (a === b) continue;
    const idEnd = source.indexOf(element, a);
    if (idEnd === -1 || idEnd >= b) {
      out.push({ id: source.slice(a, b), elements: [], position });
    } else {
      out.push({ id: source.slice(a, idEnd), elements: source.slice(idEnd + 1, b).split(element), position });
    }
    position++;
  }
  return out;
}

/** Envelope data the parser collects for one set, plus where its text lies in the source. */
export interface SetLocation {
  id: string;
  controlNumber: string;
  st: string[];
  se: string[] | undefined;
  position: number;
  segmentCount: number;
  start: number;
  end: number;
}

/**
 * A transaction set that keeps only offsets into the interchange text, so a parse costs one copy of the input.
 * `segments` is materialized on first access and cached; `readSegments` gives a fresh, uncached copy.
 */
export class SourceTransactionSet implements TransactionSet {
  readonly id: string;
  readonly controlNumber: string;
  readonly st: string[];
  readonly se: string[] | undefined;
  readonly position: number;
  readonly segmentCount: number;
  // Private fields keep the source text out of JSON.stringify and equality checks.
  readonly #source: string;
  readonly #delimiters: Delimiters;
  readonly #start: number;
  readonly #end: number;
  #cached: Segment[] | undefined;

  constructor(source: string, delimiters: Delimiters, location: SetLocation) {
    this.id = location.id;
    this.controlNumber = location.controlNumber;
    this.st = location.st;
    this.se = location.se;
    this.position = location.position;
    this.segmentCount = location.segmentCount;
    this.#source = source;
    this.#delimiters = delimiters;
    this.#start = location.start;
    this.#end = location.end;
  }

  get segments(): readonly Segment[] {
    this.#cached ??= this.read();
    return this.#cached;
  }

  /** What the set was made from, so another thread holding the same text can make it again (x12.wire.ts). */
  location(): SetLocation {
    return { id: this.id, controlNumber: this.controlNumber, st: this.st, se: this.se, position: this.position, segmentCount: this.segmentCount, start: this.#start, end: this.#end };
  }

  /** The text the set lies in: the interchange's, or a copy without line breaks when the file was wrapped. */
  sourceText(): string {
    return this.#source;
  }

  /** Fresh segments from the source text, not cached. */
  read(): Segment[] {
    return scanSegments(this.#source, this.#start, this.#end, this.#delimiters, this.position);
  }
}

/** Segments of a set without caching them on the set (for one-pass consumers such as validation). */
export function readSegments(set: TransactionSet): readonly Segment[] {
  return set instanceof SourceTransactionSet ? set.read() : set.segments;
}
