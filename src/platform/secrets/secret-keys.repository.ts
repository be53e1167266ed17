import type { Db, Executor } from '../db/schema.js';
import type { SecretKeysTable } from './secrets.tables.js';

export type SecretKeyRow = SecretKeysTable;

export async function findKey(db: Executor, id: string): Promise<SecretKeyRow | undefined> {
  return db.selectFrom('secret_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findCurrentKey(db: Executor): Promise<SecretKeyRow | undefined> {
  return db.selectFrom('secret_keys').selectAll().where('is_current', '=', 1).executeTakeFirst();
}

/** Every key, oldest first (ids are time-sortable). */
export async function listKeys(db: Executor): Promise<SecretKeyRow[]> {
  return db.selectFrom('secret_keys').selectAll().orderBy('id').execute();
}

/** Stores the first current key; a process that lost the race to create it stores nothing and reads the winner's. */
export async function insertFirstKey(db: Executor, row: Omit<SecretKeyRow, 'is_current' | 'retired_at'>): Promise<void> {
  await db.insertInto('secret_keys').values({ ...row, is_current: 1, retired_at: null }).onConflict((oc) => oc.doNothing()).execute();
}

/**
 * Retires the current key and makes `row` current, in one transaction. A rotation running at the same time in another
 * process that switched first wins: this one's key is then not stored and its caller goes on with the winner's.
 */
export async function switchCurrentKey(db: Db, row: Omit<SecretKeyRow, 'is_current' | 'retired_at'>, at: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.updateTable('secret_keys').set({ is_current: null, retired_at: at }).where('is_current', '=', 1).execute();
    await tx.insertInto('secret_keys').values({ ...row, is_current: 1, retired_at: null }).onConflict((oc) => oc.doNothing()).execute();
  });
}

/** Stores a key wrapped under another master secret, unless another process rewrapped it first. */
export async function rewrapKey(db: Executor, id: string, fromKekId: string, wrapped: { wrapped_key: string; kek_id: string }): Promise<void> {
  await db.updateTable('secret_keys').set(wrapped).where('id', '=', id).where('kek_id', '=', fromKekId).execute();
}
