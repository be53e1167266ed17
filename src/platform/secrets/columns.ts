import { sql } from 'kysely';
import type { Executor } from '../db/schema.js';

/** A column of vault ciphertexts a module declares (`secrets rotate` re-encrypts it); the AAD of each value is its row's id. */
export interface EncryptedColumn {
  table: string;
  idColumn: string;
  column: string;
}

interface EncryptedValue {
  /** The row's id as stored (text or a number). */
  id: string | number;
  value: string;
}

const BATCH = 500;

/** A key id's ciphertext prefix (see vault.ts), compared with substr: LIKE would read the `_` of `sk_` as a wildcard. */
export function prefixOf(keyId: string): string {
  return `v1:${keyId}:`;
}

/** Up to a batch of the column's values not made under `keyId`, in id order. */
export async function valuesNotUnder(db: Executor, column: EncryptedColumn, keyId: string): Promise<EncryptedValue[]> {
  const prefix = prefixOf(keyId);
  const value = sql.ref(column.column);
  const result = await sql<EncryptedValue>`select ${sql.ref(column.idColumn)} as id, ${value} as value from ${sql.table(column.table)}
    where ${value} is not null and substr(${value}, 1, ${prefix.length}) <> ${prefix}
    order by ${sql.ref(column.idColumn)} limit ${BATCH}`.execute(db);
  return result.rows;
}

/** Replaces one value only if it is still `old`: another process's write in between is kept, never clobbered. */
export async function replaceValue(db: Executor, column: EncryptedColumn, row: EncryptedValue, next: string): Promise<boolean> {
  const result = await sql`update ${sql.table(column.table)} set ${sql.ref(column.column)} = ${next}
    where ${sql.ref(column.idColumn)} = ${row.id} and ${sql.ref(column.column)} = ${row.value}`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** How many of the column's values are made under `keyId`. */
export async function countUnder(db: Executor, column: EncryptedColumn, keyId: string): Promise<number> {
  const prefix = prefixOf(keyId);
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(column.table)}
    where substr(${sql.ref(column.column)}, 1, ${prefix.length}) = ${prefix}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}
