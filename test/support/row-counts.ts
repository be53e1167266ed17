import { sql } from 'kysely';
import type { Harness } from './harness.js';

export type RowCounts = Record<string, number>;

/** Rows in every table of this harness's database (its own schema on PostgreSQL). */
export async function rowCounts(h: Harness): Promise<RowCounts> {
  const { db } = h.gateway.database;
  const tables = (await db.introspection.getTables()).filter((t) => !t.isView && (h.dialect === 'sqlite' || t.schema === h.databaseSchema));
  const counts: RowCounts = {};
  for (const table of tables) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table.name)}`.execute(db);
    counts[table.name] = Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/** The tables whose count changed between two counts, with the difference. */
export const rowChanges = (before: RowCounts, after: RowCounts) =>
  Object.fromEntries(Object.keys(after).flatMap((t) => ((after[t] ?? 0) === (before[t] ?? 0) ? [] : [[t, (after[t] ?? 0) - (before[t] ?? 0)]])));
