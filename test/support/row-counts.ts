import { sql } from 'kysely';
import type { Harness } from './harness.js';

export type RowCounts = Record<string, number>;

/**
 * The tables of this harness's database (its own schema on PostgreSQL). Not Kysely's introspection: that reads every
 * schema, and another test file's schema may be dropped meanwhile.
 */
export async function harnessTables(h: Harness): Promise<string[]> {
  const listed = h.dialect === 'sqlite'
    ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
    : sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${h.databaseSchema ?? ''} and table_type = 'BASE TABLE'`;
  return (await listed.execute(h.gateway.database.db)).rows.map((r) => r.name);
}

/** Rows in every table of this harness's database. */
export async function rowCounts(h: Harness): Promise<RowCounts> {
  const { db } = h.gateway.database;
  const counts: RowCounts = {};
  for (const name of await harnessTables(h)) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(name)}`.execute(db);
    counts[name] = Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/** The tables whose count changed between two counts, with the difference. */
export const rowChanges = (before: RowCounts, after: RowCounts) =>
  Object.fromEntries(Object.keys(after).flatMap((t) => ((after[t] ?? 0) === (before[t] ?? 0) ? [] : [[t, (after[t] ?? 0) - (before[t] ?? 0)]])));
