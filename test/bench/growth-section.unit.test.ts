import { describe, expect, it } from 'vitest';
import { type GrowthTable, mergeGrowthSections, parseGrowthSection, renderGrowthSection } from '../../bench/growth-section.js';

/** The section as the bench published it before rows had their own dates (abridged). */
const PUBLISHED = [
  '<!-- bench:growth -->',
  '## Flat cost as data grows ([16/20])',
  '',
  'Goal: each read at 1,000,000 rows within 1.5x of itself at 10,000.',
  '',
  '**SQLite** (seeding products 55 s, object_rows 112 s)',
  '',
  '| table | read | ms at 10,000 | ms at 1,000,000 (+ 1,000,000 of another org) | ratio | goal <= 1.5x |',
  '|---|---|---:|---:|---:|---|',
  '| products | GET /v1/products | 9.35 | 11.20 | 1.20 | met |',
  '| object_rows | ?make=make-17 (2%) | 1.71 | 2.03 | 1.19 | met |',
  '',
  '**PostgreSQL** (seeding products 124 s, object_rows 1,217 s)',
  '',
  '| table | read | ms at 10,000 | ms at 1,000,000 (+ 1,000,000 of another org) | ratio | goal <= 1.5x |',
  '|---|---|---:|---:|---:|---|',
  '| products | GET /v1/products | 2.01 | 1.36 | 0.67 | met |',
  '| object_rows | ?make=make-17 (2%) | 7.28 | 1,016.12 | 139.58 | **not met** |',
  '',
  '_Measured 2026-11-27T11:05:01.731Z._',
  '',
  'Load average at the end of the run: about 17 / 16 / 16.',
].join('\n');

const ORDER = ['products', 'object_rows'];

describe('the growth section of docs/benchmarks.md', () => {
  it('reads back the published tables, dating each row by the section when rows had no date', () => {
    const section = parseGrowthSection(PUBLISHED);
    expect(section.tables.map((t) => [t.dialect, t.small, t.large])).toEqual([['sqlite', 10_000, 1_000_000], ['postgres', 10_000, 1_000_000]]);
    expect(section.tables[1]?.seedSeconds).toEqual([{ table: 'products', seconds: 124 }, { table: 'object_rows', seconds: 1217 }]);
    expect(section.tables[1]?.reads[1]).toEqual({ table: 'object_rows', read: '?make=make-17 (2%)', smallMs: 7.28, largeMs: 1016.12, ratio: 139.58, measured: '2026-11-27 11:05' });
    expect(section.notes).toEqual(['Load average at the end of the run: about 17 / 16 / 16.']);
  });

  it('replaces only the re-measured table on its dialect, keeps every other row with its date, and reads back what it wrote', () => {
    const fresh: GrowthTable = {
      dialect: 'postgres',
      small: 10_000,
      large: 1_000_000,
      reads: [{ table: 'object_rows', read: '?make=make-17 (2%)', smallMs: 2.08, largeMs: 2.17, ratio: 2.17 / 2.08, measured: '2026-11-27 21:40' }],
      seedSeconds: [{ table: 'object_rows', seconds: 50 }],
    };
    const merged = mergeGrowthSections(parseGrowthSection(PUBLISHED), [fresh], ORDER, 'Rows dated 2026-11-27 21:40: object_rows on PostgreSQL re-measured.');
    const text = renderGrowthSection(merged).join('\n');
    expect(text).toContain('| object_rows | ?make=make-17 (2%) | 2.08 | 2.17 | 1.04 | met | 2026-11-27 21:40 |');
    // As published: 1.36 / 2.01 would round to 0.68.
    expect(text).toContain('| products | GET /v1/products | 2.01 | 1.36 | 0.67 | met | 2026-11-27 11:05 |');
    expect(text).toContain('| object_rows | ?make=make-17 (2%) | 1.71 | 2.03 | 1.19 | met | 2026-11-27 11:05 |');
    expect(text).toContain('**PostgreSQL** (seeding products 124 s, object_rows 50 s)');
    expect(text).not.toContain('1,016.12');
    expect(renderGrowthSection(parseGrowthSection(`${text}\n\n_Measured 2026-11-27T21:40:00.000Z._`)).join('\n')).toBe(text);
  });

  it('refuses to mix sizes in one table', () => {
    const fresh: GrowthTable = { dialect: 'sqlite', small: 10_000, large: 50_000, reads: [], seedSeconds: [{ table: 'products', seconds: 1 }] };
    expect(() => mergeGrowthSections(parseGrowthSection(PUBLISHED), [fresh], ORDER, 'note')).toThrow(/at 10000 \/ 1000000 rows, this run at 10000 \/ 50000/);
  });
});
