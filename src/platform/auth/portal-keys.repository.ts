import type { Executor, PortalKeysTable } from '../db/schema.js';

export type PortalKeyRow = PortalKeysTable;
export type PortalKeyListRow = PortalKeyRow & { org_slug: string };

export async function insertPortalKey(db: Executor, row: PortalKeyRow): Promise<void> {
  await db.insertInto('portal_keys').values(row).execute();
}

export async function findPortalKeyByHash(db: Executor, keyHash: string): Promise<PortalKeyRow | undefined> {
  return db.selectFrom('portal_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findPortalKeyById(db: Executor, id: string): Promise<PortalKeyListRow | undefined> {
  return db
    .selectFrom('portal_keys')
    .innerJoin('orgs', 'orgs.id', 'portal_keys.org_id')
    .selectAll('portal_keys')
    .select('orgs.slug as org_slug')
    .where('portal_keys.id', '=', id)
    .executeTakeFirst();
}

/** Oldest first (ids are time-sortable), optionally of one org, after the cursor's id. */
export async function listPortalKeys(db: Executor, opts: { orgId?: string; afterId?: string; limit: number }): Promise<PortalKeyListRow[]> {
  let query = db.selectFrom('portal_keys').innerJoin('orgs', 'orgs.id', 'portal_keys.org_id').selectAll('portal_keys').select('orgs.slug as org_slug');
  if (opts.orgId !== undefined) query = query.where('portal_keys.org_id', '=', opts.orgId);
  if (opts.afterId !== undefined) query = query.where('portal_keys.id', '>', opts.afterId);
  return query.orderBy('portal_keys.id').limit(opts.limit).execute();
}

export async function revokePortalKey(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('portal_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** The origins of every key not revoked: the ones a CORS preflight (which carries no key) is answered for. */
export async function activeOrigins(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('portal_keys').select('allowed_origins').where('revoked_at', 'is', null).execute();
  return rows.flatMap((r) => r.allowed_origins.split(' '));
}
