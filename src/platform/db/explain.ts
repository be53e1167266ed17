import { type Compilable, CompiledQuery } from 'kysely';
import type { DatabaseHandle } from './database.js';

/** The planner's plan for a query, one line per step: EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL. */
export async function explainQuery(database: DatabaseHandle, query: Compilable): Promise<string[]> {
  const { sql, parameters } = query.compile();
  if (database.dialect === 'sqlite') {
    const result = await database.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${sql}`, [...parameters]));
    return result.rows.map((r) => r.detail);
  }
  const result = await database.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${sql}`, [...parameters]));
  return result.rows.map((r) => r['QUERY PLAN']);
}
