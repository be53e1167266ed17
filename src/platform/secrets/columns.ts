import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';

/** A column of vault ciphertexts a module declares (`secrets rotate` re-encrypts it); the AAD of each value is its row's id. */
export interface EncryptedColumn {
  table: string;
  idColumn: string;
  column: string;
}

interface EncryptedValue {
  /** The row's id: text, as every declared column's table has (the slice's UPDATE compares it as text). */
  id: string | number;
  value: string;
}

/** Values one slice re-encrypts at most (on SQLite fewer when they cost more than the slice target, see SlicePacer). */
export const ROTATION_SLICE = 200;

/** A key id's ciphertext prefix (see vault.ts), compared with substr: LIKE would read the `_` of `sk_` as a wildcard. */
export function prefixOf(keyId: string): string {
  return `v1:${keyId}:`;
}

/** Up to `limit` of the column's values not made under `keyId`, in id order. */
export async function valuesNotUnder(db: Executor, column: EncryptedColumn, keyId: string, limit = ROTATION_SLICE): Promise<EncryptedValue[]> {
  const prefix = prefixOf(keyId);
  const value = sql.ref(column.column);
  const result = await sql<EncryptedValue>`select ${sql.ref(column.idColumn)} as id, ${value} as value from ${sql.table(column.table)}
    where ${value} is not null and substr(${value}, 1, ${prefix.length}) <> ${prefix}
    order by ${sql.ref(column.idColumn)} limit ${limit}`.execute(db);
  return result.rows;
}

/**
 * Replaces each value only if it is still the one read (`value`), in one statement (so one short transaction): another
 * process's write in between is kept, never clobbered. Answers how many it replaced. UPDATE ... FROM runs on both dialects
 * (SQLite since 3.33); the VALUES columns are column1..3 on both.
 */
export async function replaceValues(db: Executor, column: EncryptedColumn, rows: readonly (EncryptedValue & { next: string })[]): Promise<number> {
  if (rows.length === 0) return 0;
  const target = sql.ref(`${column.table}.${column.column}`);
  const values = sql.join(rows.map((r) => sql`(${String(r.id)}, ${r.value}, ${r.next})`));
  const result = await sql`update ${sql.table(column.table)} set ${sql.ref(column.column)} = v.column3 from (values ${values}) as v
    where ${sql.ref(`${column.table}.${column.idColumn}`)} = v.column1 and ${target} = v.column2`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** How many of the column's values are made under `keyId`. */
export async function countUnder(db: Executor, column: EncryptedColumn, keyId: string): Promise<number> {
  const prefix = prefixOf(keyId);
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(column.table)}
    where substr(${sql.ref(column.column)}, 1, ${prefix.length}) = ${prefix}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
