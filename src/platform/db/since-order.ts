import { type SelectQueryBuilder, sql } from 'kysely';
import type { SinceWindow } from '../core/pagination.js';

/**
 * A list's query in its sync order (see core/pagination `sinceWindowOf`): rows whose `column` is at or after `since`,
 * after the cursor's (column, tiebreak), ordered by both ascending. The caller adds the org and its other filters; an
 * index on (org or parent, column, tiebreak) serves it. `alias` qualifies the columns in a query that joins.
 */
export function inSinceOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: SinceWindow,
  tiebreak: string,
  alias?: string,
): SelectQueryBuilder<DB, TB, O> {
  const column = sql.ref(alias === undefined ? window.column : `${alias}.${window.column}`);
  const id = sql.ref(alias === undefined ? tiebreak : `${alias}.${tiebreak}`);
  let windowed = query.where(sql<boolean>`${column} >= ${window.since}`);
  // A row value, as the lists' usual cursors: both planners seek the index to it.
  if (window.after !== undefined) windowed = windowed.where(sql<boolean>`(${column}, ${id}) > (${window.after.at}, ${window.after.id})`);
  return windowed.orderBy(sql`${column}`).orderBy(sql`${id}`);
}
