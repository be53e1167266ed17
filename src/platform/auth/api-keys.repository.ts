import type { ApiKeysTable, Executor } from '../db/schema.js';

export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKeyById(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Executor, orgId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('org_id', '=', orgId).orderBy('created_at').orderBy('id').execute();
}

export async function updateApiKey(
  db: Executor,
  id: string,
  patch: Partial<Pick<ApiKeyRow, 'revoked_at' | 'expires_at' | 'rotated_to'>>,
): Promise<void> {
  await db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
}
