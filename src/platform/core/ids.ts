import { randomFillSync } from 'node:crypto';
import { hostname } from 'node:os';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** Random bytes drawn 4 KiB at a time: one CSPRNG call per 256 ids rather than one each (bulk EDI makes thousands). */
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomChars(n: number): string {
  if (offset + n > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let out = '';
  for (let i = 0; i < n; i++) out += CROCKFORD.charAt((pool[offset + i] ?? 0) % 32);
  offset += n;
  return out;
}

/** Prefixed, time-sortable id (`ord_01j...`): 48-bit millisecond time then 80 random bits, Crockford base32. */
export function newId(prefix: string, at: Date): string {
  let time = at.getTime();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD.charAt(time % 32) + head;
    time = Math.floor(time / 32);
  }
  return `${prefix}_${head}${randomChars(16)}`;
}

/**
 * Who holds a lease (an outbox delivery, a telematics connection): `<kind>:<host>:<pid>:<random>`, unique to one holder
 * in one process, and naming the machine and process for an operator reading the table.
 */
export function leaseOwnerId(kind: string): string {
  return `${kind}:${hostname()}:${process.pid}:${randomChars(8)}`;
}
