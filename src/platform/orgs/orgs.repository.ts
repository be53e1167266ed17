import type { Executor, OrgsTable } from '../db/schema.js';

export type OrgRow = OrgsTable;

export async function insertOrg(db: Executor, row: OrgRow): Promise<void> {
  await db.insertInto('orgs').values(row).execute();
}

export async function findOrgBySlug(db: Executor, slug: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function findOrgById(db: Executor, id: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listOrgs(db: Executor): Promise<OrgRow[]> {
  return db.selectFrom('orgs').selectAll().orderBy('slug').execute();
}

export async function readSettings(db: Executor, orgId: string): Promise<Record<string, string>> {
  const rows = await db.selectFrom('org_settings').select(['key', 'value']).where('org_id', '=', orgId).execute();
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export async function upsertSetting(db: Executor, orgId: string, key: string, value: string, at: string): Promise<void> {
  await db
    .insertInto('org_settings')
    .values({ org_id: orgId, key, value, updated_at: at })
    .onConflict((oc) => oc.columns(['org_id', 'key']).doUpdateSet({ value, updated_at: at }))
    .execute();
}
