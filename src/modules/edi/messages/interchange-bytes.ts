import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
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

export function sha256Hex(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** sha256Hex of a received body, hashed between yields (a 10 MB body takes ~40 ms at once). */
export async function sha256HexPaced(raw: Buffer): Promise<string> {
  const hash = createHash('sha256');
  await updatePaced(hash, raw, 64 * 1024);
  return hash.digest('hex');
}
