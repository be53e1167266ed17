import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { invalidInput } from '../../../platform/core/errors.js';
import { updatePaced } from '../../../platform/core/paced-hash.js';

/** Interchanges one body may carry (ISA...IEA ISA...IEA); more is refused whole. */
export const MAX_INTERCHANGES_PER_BODY = 1000;

/**
 * The text of a received body: UTF-8 when it is valid UTF-8, else Latin-1 (every byte one character, nothing lost).
 * Checked first and then converted by Buffer: a fatal TextDecoder builds a UTF-16 copy twice the body's size on the way.
 */
export function decodeInterchange(raw: Buffer): string {
  // ASCII (nearly all X12) read as Latin-1 is the same text, made straight into a one-byte string.
  if (isAscii(raw)) return raw.toString('latin1');
  // A leading BOM is not text: TextDecoder dropped it, and so does this.
  if (isUtf8(raw)) return raw.toString('utf8').replace(/^\uFEFF/, '');
  return raw.toString('latin1');
}

/** Where a part of the raw bytes starts and ends, and its text: what edi_messages_get's include=raw shows. */
export interface RawSlice {
  text: string;
  offset: number;
  length: number;
  nextOffset: number | null;
}

const isUtf8Continuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/**
 * At most `max` bytes of the raw interchange from `offset`, as text decoded the way the whole is (decodeInterchange);
 * in a UTF-8 body the part ends before a character it would split, and an offset inside one is refused.
 */
export function sliceInterchange(raw: Buffer, offset: number, max: number): RawSlice {
  if (offset > raw.length) throw invalidInput(`raw_offset ${offset} is past the end of the interchange (${raw.length} bytes)`);
  const utf8 = !isAscii(raw) && isUtf8(raw);
  if (utf8 && isUtf8Continuation(raw[offset])) throw invalidInput(`raw_offset ${offset} is inside a character: pass a raw.next_offset`);
  let end = Math.min(raw.length, offset + max);
  while (utf8 && end < raw.length && end > offset && isUtf8Continuation(raw[end])) end--;
  const part = raw.subarray(offset, end);
  const decoded = utf8 ? part.toString('utf8') : part.toString('latin1');
  // A leading BOM is not text, as in decodeInterchange.
  const text = utf8 && offset === 0 ? decoded.replace(/^\uFEFF/, '') : decoded;
  return { text, offset, length: end - offset, nextOffset: end < raw.length ? end : null };
}

export function sha256Hex(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** sha256Hex of a received body, hashed between yields (a 10 MB body takes ~40 ms at once). */
export async function sha256HexPaced(raw: Buffer): Promise<string> {
  const hash = createHash('sha256');
  await updatePaced(hash, raw, 64 * 1024);
  return hash.digest('hex');
}
