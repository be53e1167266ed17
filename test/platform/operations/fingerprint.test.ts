import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, fingerprintOfRaw } from '../../../src/platform/operations/idempotency.js';

/** How fingerprints were defined when the keys stored in the last 24 h were written: one canonical JSON string. */
function canonicalJson(value: unknown): string {
  if (Buffer.isBuffer(value)) return JSON.stringify(value.toString('base64'));
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
const stored = (operation: string, input: unknown) => createHash('sha256').update(`${operation}\n`).update(canonicalJson(input)).digest('hex');

describe('idempotency fingerprints', () => {
  const cases: [string, unknown][] = [
    ['a JSON body with nested objects, arrays, nulls and unicode', { params: { id: 'x' }, query: {}, body: { b: [1, null, { z: 'é', a: undefined }], a: 'ü\u2028"' } }],
    ['an array with undefined and an empty object', { params: {}, query: { q: undefined }, body: [undefined, {}, [], 0, false] }],
    ['an empty raw body', { params: {}, query: {}, body: Buffer.alloc(0) }],
    ...[1, 65_537, 65_538, 65_539, 200_001].map((n): [string, unknown] => [`a raw body of ${n} bytes`, { params: {}, query: {}, body: randomBytes(n) }]),
  ];
  it.each(cases)('match the stored definition for %s (a retry across an upgrade still replays)', (_what, input) => {
    expect(fingerprintOf('edi_submit', input)).toBe(stored('edi_submit', input));
  });

  it.each([0, 1, 65_538, 600_000, 1_500_001])('of a raw body of %i bytes, hashed between yields, are the same digest', async (n) => {
    const input = { params: { id: 'x' }, query: { q: 'é', none: undefined }, body: randomBytes(n) };
    expect(await fingerprintOfRaw('edi_submit', input)).toBe(stored('edi_submit', input));
  });

  it('differ by operation, key order aside', () => {
    expect(fingerprintOf('a', { x: 1, y: 2 })).toBe(fingerprintOf('a', { y: 2, x: 1 }));
    expect(fingerprintOf('a', { x: 1 })).not.toBe(fingerprintOf('b', { x: 1 }));
    expect(fingerprintOf('a', { x: Buffer.from('ab') })).not.toBe(fingerprintOf('a', { x: Buffer.from('ac') }));
  });
});
