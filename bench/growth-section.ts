import type { GrowthBench } from './growth.bench.js';

/**
 * The growth section of docs/benchmarks.md as data, so that a run of some tables or one dialect
 * (BENCH_GROWTH_TABLES, BENCH_GROWTH_DIALECTS) replaces only its own rows and keeps the others, each row with its date.
 */

export interface DatedRead {
  table: string;
  read: string;
  smallMs: number;
  largeMs: number;
  /** largeMs / smallMs, or as published (a kept row's figures are not recomputed from their rounded ms). */
  ratio: number;
  /** When the row was measured: `YYYY-MM-DD HH:MM` (UTC). */
  measured: string;
}

export interface GrowthTable {
  dialect: GrowthBench['dialect'];
  small: number;
  large: number;
  reads: DatedRead[];
  seedSeconds: GrowthBench['seedSeconds'];
}

export interface GrowthSection {
  tables: GrowthTable[];
  /** The paragraphs under the tables (load averages, remarks), kept as written. */
  notes: string[];
}

export const GROWTH_GOAL = 1.5;
const DIALECT_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;
const DIALECTS = ['sqlite', 'postgres'] as const;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const number = (text: string) => Number(text.replaceAll(',', ''));
export const minuteOf = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

export function datedTable(run: GrowthBench, measured: string): GrowthTable {
  return { dialect: run.dialect, small: run.small, large: run.large, seedSeconds: run.seedSeconds, reads: run.reads.map((r) => ({ ...r, ratio: r.largeMs / r.smallMs, measured })) };
}

export function renderGrowthSection(section: GrowthSection): string[] {
  const first = section.tables[0];
  const small = fmt(first?.small ?? 0);
  const large = fmt(first?.large ?? 0);
  return [
    '## Flat cost as data grows ([16/20])',
    '',
    'Each table is seeded straight in the database (INSERT ... SELECT over a generated series, one table at a time): the measured org\'s',
    `first ${small} rows, then its rows up to ${large} while another org gets ${large} more, the two orgs' rows`,
    'interleaved in time. Each read runs through a real `gateway serve` process over HTTP (the outbox, which has no HTTP read, through the',
    "service the operator's `deliveries list` calls), sequentially, median of 100 after 5 unmeasured; the middle page's cursor is that of the",
    'org\'s middle row. On PostgreSQL the table is ANALYZEd after each load (what autovacuum would do); SQLite keeps no statistics.',
    `Goal: each read at ${large} rows within ${GROWTH_GOAL}x of itself at ${small}. Each row says when it was measured`,
    '(`BENCH_GROWTH_TABLES` and `BENCH_GROWTH_DIALECTS` re-measure some rows and keep the others).',
    ...section.tables.flatMap((t) => [
      '',
      `**${DIALECT_NAMES[t.dialect]}** (seeding ${t.seedSeconds.map((s) => `${s.table} ${fmt(s.seconds)} s`).join(', ')})`,
      '',
      `| table | read | ms at ${fmt(t.small)} | ms at ${fmt(t.large)} (+ ${fmt(t.large)} of another org) | ratio | goal <= ${GROWTH_GOAL}x | measured (UTC) |`,
      '|---|---|---:|---:|---:|---|---|',
      ...t.reads.map(
        (x) => `| ${x.table} | ${x.read} | ${fmt(x.smallMs, 2)} | ${fmt(x.largeMs, 2)} | ${fmt(x.ratio, 2)} | ${x.ratio <= GROWTH_GOAL ? 'met' : '**not met**'} | ${x.measured} |`,
      ),
    ]),
    ...section.notes.flatMap((note) => ['', note]),
  ];
}

/** Reads back what renderGrowthSection wrote (or the earlier form without a date column: its rows get the section's date). */
export function parseGrowthSection(text: string): GrowthSection {
  const lines = text.split('\n');
  const stamp = /^_Measured (\S+)\._$/.exec(lines.find((l) => l.startsWith('_Measured ')) ?? '')?.[1];
  const sectionDate = stamp === undefined ? 'unknown' : minuteOf(new Date(stamp));
  const tables: GrowthTable[] = [];
  let lastTableLine = -1;
  lines.forEach((line, i) => {
    const head = /^\*\*(SQLite|PostgreSQL)\*\* \(seeding (.*)\)$/.exec(line);
    if (head) {
      const dialect = head[1] === 'SQLite' ? 'sqlite' : 'postgres';
      const seedSeconds = [...(head[2] ?? '').matchAll(/(\w+) ([\d,.]+) s/g)].map((m) => ({ table: m[1] ?? '', seconds: number(m[2] ?? '') }));
      tables.push({ dialect, small: 0, large: 0, reads: [], seedSeconds });
      return;
    }
    const current = tables.at(-1);
    if (current === undefined || !line.startsWith('|')) return;
    lastTableLine = i;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const sizes = /^ms at ([\d,]+)$/.exec(cells[2] ?? '');
    if (sizes) {
      current.small = number(sizes[1] ?? '');
      current.large = number(/^ms at ([\d,]+)/.exec(cells[3] ?? '')?.[1] ?? '');
      return;
    }
    if (cells[0]?.startsWith('---') || cells.length < 6) return;
    current.reads.push({ table: cells[0] ?? '', read: cells[1] ?? '', smallMs: number(cells[2] ?? ''), largeMs: number(cells[3] ?? ''), ratio: number(cells[4] ?? ''), measured: cells[6] ?? sectionDate });
  });
  // What follows the last table, but the date line and the skipped-dialect line the run writes afresh.
  const notes = lines
    .slice(lastTableLine + 1)
    .join('\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith('_Measured ') && !p.startsWith('PostgreSQL not run'));
  return { tables, notes };
}

/**
 * The published section with the fresh tables' rows in place of theirs: a table measured now replaces that table's
 * rows and seeding time on that dialect; every other row stays as published, with its own date.
 */
export function mergeGrowthSections(published: GrowthSection, fresh: GrowthTable[], tableOrder: readonly string[], note: string): GrowthSection {
  const tables = DIALECTS.flatMap((dialect): GrowthTable[] => {
    const old = published.tables.find((t) => t.dialect === dialect);
    const now = fresh.find((t) => t.dialect === dialect);
    if (now === undefined) return old === undefined ? [] : [old];
    if (old === undefined) return [now];
    if (old.small !== now.small || old.large !== now.large) {
      throw new Error(`growth: the published ${DIALECT_NAMES[dialect]} table is at ${old.small} / ${old.large} rows, this run at ${now.small} / ${now.large}: re-run every table (no BENCH_GROWTH_TABLES)`);
    }
    const measured = new Set(now.seedSeconds.map((s) => s.table));
    const from = (table: string) => (measured.has(table) ? now : old);
    return [{
      ...now,
      reads: tableOrder.flatMap((table) => from(table).reads.filter((r) => r.table === table)),
      seedSeconds: tableOrder.flatMap((table) => from(table).seedSeconds.filter((s) => s.table === table)),
    }];
  });
  return { tables, notes: [...published.notes, note] };
}
