import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Prefixed, time-sortable id (`ord_01j...`): 48-bit millisecond time then 80 random bits, Crockford base32. */
export function newId(prefix: string, at: Date): string {
  let time = at.getTime();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD.charAt(time % 32) + head;
    time = Math.floor(time / 32);
  }
  const bytes = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD.charAt((bytes[i] ?? 0) % 32);
  return `${prefix}_${head}${tail}`;
}
