import { createHash } from 'node:crypto';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a received body: UTF-8 when it is valid UTF-8, else Latin-1 (every byte one character, nothing lost). */
export function decodeInterchange(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}

export function sha256Hex(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}
