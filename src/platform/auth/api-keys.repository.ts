import type { ApiKeysTable, Executor } from '../db/schema.js';

type ApiKeyRow = ApiKeysTable;
export type ApiKeyListRow = ApiKeyRow & { org_slug: string };

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKeyById(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Oldest first (ids are time-sortable), optionally of one org, after the cursor's id. */
export async function listApiKeys(db: Executor, opts: { orgId?: string; afterId?: string; limit: number }): Promise<ApiKeyListRow[]> {
  let query = db.selectFrom('api_keys').innerJoin('orgs', 'orgs.id', 'api_keys.org_id').selectAll('api_keys').select('orgs.slug as org_slug');
  if (opts.orgId !== undefined) query = query.where('api_keys.org_id', '=', opts.orgId);
  if (opts.afterId !== undefined) query = query.where('api_keys.id', '>', opts.afterId);
  return query.orderBy('api_keys.id').limit(opts.limit).execute();
}

export async function updateApiKey(
  db: Executor,
  id: string,
  patch: Partial<Pick<ApiKeyRow, 'revoked_at' | 'expires_at' | 'rotated_to'>>,
): Promise<void> {
  await db.updateTable('api_keys').set(patch).where('id', '=', id).execute();
}
