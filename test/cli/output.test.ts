import { describe, expect, it } from 'vitest';
import { printable, table } from '../../src/cli/output.js';

describe('CLI table output', () => {
  it('keeps one row per record: a label with a line break cannot forge a row', () => {
    const rows = [
      { id: 'con_1', label: 'North yard\ncon_forged  vendor1_livelink  active', status: 'active' },
      { id: 'con_2', label: 'South', status: 'active' },
    ];
    const lines = table(rows, ['id', 'label', 'status']).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('North yard\\ncon_forged');
    expect(lines.some((line) => line.startsWith('con_forged'))).toBe(false);
  });

  it('escapes control characters, separators and bidi controls; keeps other text as it is', () => {
    expect(printable('a\r\nb\tc')).toBe('a\\r\\nb\\tc');
    expect(printable('\u001b[2Jclear')).toBe('\\u001b[2Jclear');
    expect(printable('x\u0085y\u2028z')).toBe('x\\u0085y\\u2028z');
    expect(printable('invoice\u202etxt.exe\u2066')).toBe('invoice\\u202etxt.exe\\u2066');
    expect(printable('Größe 😀 שלום')).toBe('Größe 😀 שלום');
    expect(table([{ v: { note: 'a\nb' } }], ['v'])).toBe('v\n{"note":"a\\nb"}');
  });
});
