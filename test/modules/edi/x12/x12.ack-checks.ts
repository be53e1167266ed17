import { expect } from 'vitest';
import { type Ack997, type Interchange, parseX12, validateInterchange } from '../../../../src/modules/edi/x12/index.js';

/** Parses a 997 back with our own parser (it must be clean and valid); its segments between ST and SE, id first. */
export function readAck(ack: Ack997 | undefined): { ic: Interchange; segments: string[][] } {
  if (ack === undefined) throw new Error('no 997');
  const result = parseX12(ack.x12);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  expect(result.issues).toEqual([]);
  expect(validateInterchange(result.interchange)).toEqual([]);
  const set = result.interchange.groups[0]?.transactionSets[0];
  if (set === undefined) throw new Error('997 has no set');
  return { ic: result.interchange, segments: set.segments.slice(1, -1).map((s) => [s.id, ...s.elements]) };
}

/** What every 997 must satisfy: AK9's code and counts agree with its AK5s, and a rejection names a reason. */
export function expectConsistent997(body: readonly string[][]): void {
  const ak5 = body.filter((s) => s[0] === 'AK5');
  const ak9 = body.find((s) => s[0] === 'AK9');
  if (ak9 === undefined) throw new Error('no AK9');
  const [, code, , received, accepted, ...groupCodes] = ak9;
  expect(ak5.length).toBe(body.filter((s) => s[0] === 'AK2').length);
  expect(Number(received)).toBe(ak5.length);
  const taken = ak5.filter((s) => s[1] === 'A' || s[1] === 'E').length;
  expect(Number(accepted)).toBe(taken);
  for (const s of ak5) if (s[1] === 'R') expect(s.length > 2 || groupCodes.length > 0, `AK5 ${s.join('*')} names no reason`).toBe(true);
  if (code === 'A') expect(taken).toBe(ak5.length);
  if (code === 'P') expect(taken > 0 && taken < ak5.length).toBe(true);
  if (code === 'R') {
    expect(taken).toBe(0);
    expect(groupCodes.length > 0 || ak5.some((s) => s.length > 2)).toBe(true);
  }
  if (groupCodes.length > 0) expect(code).toBe('R');
}
