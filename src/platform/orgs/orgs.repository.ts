import type { Executor, OrgsTable } from '../db/schema.js';
import { notFound } from '../core/errors.js';
import { PreparedQuery } from '../db/prepared-query.js';

type OrgRow = OrgsTable;

export async function insertOrg(db: Executor, row: OrgRow): Promise<void> {
  await db.insertInto('orgs').values(row).execute();
}

export async function findOrgBySlug(db: Executor, slug: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** A list's optional `org` filter: the org's id, undefined without one, 404 for an unknown slug. */
export async function orgIdFilter(db: Executor, slug: string | undefined): Promise<string | undefined> {
  if (slug === undefined) return undefined;
  const org = await findOrgBySlug(db, slug);
  if (!org) throw notFound(`org ${slug}`);
  return org.id;
}

export async function findOrgById(db: Executor, id: string): Promise<OrgRow | undefined> {
  return db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** By slug; all of them unless a page is asked for. */
export async function listOrgs(db: Executor, opts: { afterSlug?: string; limit?: number } = {}): Promise<OrgRow[]> {
  let query = db.selectFrom('orgs').selectAll().orderBy('slug');
  if (opts.afterSlug !== undefined) query = query.where('slug', '>', opts.afterSlug);
  return (opts.limit === undefined ? query : query.limit(opts.limit)).execute();
}

// Read by every order (its pricing settings): compiled once.
const settingsOfOrg = new PreparedQuery((db, v: { orgId: string }) => db.selectFrom('org_settings').select(['key', 'value']).where('org_id', '=', v.orgId));

/** What each open transaction has read of its orgs' settings: a later read in it (the webhook fan-out's) is answered from here. */
const readInTransaction = new WeakMap<Executor, Map<string, Record<string, string>>>();

/** The org's stored settings; inside a transaction read once, its own writes (upsertSetting) dropping what it read. */
export async function readSettings(db: Executor, orgId: string): Promise<Record<string, string>> {
  const memo = db.isTransaction ? readInTransaction.get(db) : undefined;
  const known = memo?.get(orgId);
  if (known !== undefined) return known;
  const rows = await settingsOfOrg.execute(db, { orgId });
  const stored = Object.fromEntries(rows.map((r) => [r.key, r.value]));
  if (db.isTransaction) {
    if (memo === undefined) readInTransaction.set(db, new Map([[orgId, stored]]));
    else memo.set(orgId, stored);
  }
  return stored;
}

export async function upsertSetting(db: Executor, orgId: string, key: string, value: string, at: string): Promise<void> {
  readInTransaction.get(db)?.delete(orgId);
  await db
    .insertInto('org_settings')
    .values({ org_id: orgId, key, value, updated_at: at })
    .onConflict((oc) => oc.columns(['org_id', 'key']).doUpdateSet({ value, updated_at: at }))
    .execute();
}
