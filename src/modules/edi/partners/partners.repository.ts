import { sql } from 'kysely';
import type { Executor, Tx } from '../../../platform/db/schema.js';
import type { EdiPartnersTable, EdiProfilesTable } from './partners.tables.js';

export type PartnerRow = EdiPartnersTable;
export type ProfileRow = EdiProfilesTable;

/** The highest ISA13 / GS06 there is (nine digits). */
const MAX_CONTROL_NUMBER = 999_999_999;

export async function insertPartner(db: Executor, row: PartnerRow): Promise<void> {
  await db.insertInto('edi_partners').values(row).execute();
}

/** The partner an inbound ISA05/ISA06 names, within one org. */
export async function findPartnerByIsa(db: Executor, orgId: string, qualifier: string, id: string): Promise<PartnerRow | undefined> {
  return db
    .selectFrom('edi_partners')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('isa_qualifier', '=', qualifier)
    .where('isa_id', '=', id)
    .executeTakeFirst();
}

export async function findPartnerById(db: Executor, orgId: string, id: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('edi_partners').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}

/** By id, or else by name. */
export async function findPartnerByRef(db: Executor, orgId: string, ref: string): Promise<PartnerRow | undefined> {
  return (await findPartnerById(db, orgId, ref)) ?? findPartnerByName(db, orgId, ref);
}

export async function findPartnerByName(db: Executor, orgId: string, name: string): Promise<PartnerRow | undefined> {
  return db.selectFrom('edi_partners').selectAll().where('org_id', '=', orgId).where('name', '=', name).executeTakeFirst();
}

export async function listPartners(db: Executor, orgId: string): Promise<PartnerRow[]> {
  return db.selectFrom('edi_partners').selectAll().where('org_id', '=', orgId).orderBy('name').execute();
}

/** One page of the org's partners by name (unique per org: the name index orders and seeks it). */
export async function listPartnersPage(db: Executor, orgId: string, opts: { afterName?: string; limit: number }): Promise<PartnerRow[]> {
  let query = db.selectFrom('edi_partners').selectAll().where('org_id', '=', orgId);
  if (opts.afterName !== undefined) query = query.where('name', '>', opts.afterName);
  return query.orderBy('name').limit(opts.limit).execute();
}

export async function findPartnersByIds(db: Executor, orgId: string, ids: string[]): Promise<PartnerRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('edi_partners').selectAll().where('org_id', '=', orgId).where('id', 'in', ids).execute();
}

/** Replaces what the partner's guide asks of our documents (JSON DocumentProfile). */
export async function updateDocumentProfile(db: Executor, orgId: string, id: string, profile: string): Promise<void> {
  await db.updateTable('edi_partners').set({ document_profile: profile }).where('org_id', '=', orgId).where('id', '=', id).execute();
}

export async function findProfile(db: Executor, orgId: string): Promise<ProfileRow | undefined> {
  return db.selectFrom('edi_profiles').selectAll().where('org_id', '=', orgId).executeTakeFirst();
}

/** Sets the org's own interchange id; the control-number counter carries on from where it is. */
export async function saveIdentity(db: Executor, orgId: string, qualifier: string, id: string, at: string): Promise<void> {
  await db
    .insertInto('edi_profiles')
    .values({ org_id: orgId, isa_qualifier: qualifier, isa_id: id, last_control_number: 0, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('org_id').doUpdateSet({ isa_qualifier: qualifier, isa_id: id, updated_at: at }))
    .execute();
}

export async function insertInterchangeId(db: Executor, orgId: string, qualifier: string, id: string, at: string): Promise<void> {
  await db.insertInto('edi_interchange_ids').values({ org_id: orgId, isa_qualifier: qualifier, isa_id: id, created_at: at }).execute();
}

export async function listInterchangeIds(db: Executor, orgId: string): Promise<{ isa_qualifier: string; isa_id: string; created_at: string }[]> {
  return db
    .selectFrom('edi_interchange_ids')
    .select(['isa_qualifier', 'isa_id', 'created_at'])
    .where('org_id', '=', orgId)
    .orderBy('isa_qualifier')
    .orderBy('isa_id')
    .execute();
}

/** Whether ISA07/ISA08 is one of the org's further interchange ids (the main one is in edi_profiles). */
export async function isExtraInterchangeId(db: Executor, orgId: string, qualifier: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('edi_interchange_ids')
    .select('org_id')
    .where('org_id', '=', orgId)
    .where('isa_qualifier', '=', qualifier)
    .where('isa_id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** The first of `count` fresh control numbers; the row stays locked until commit, so no two requests share one. */
export async function reserveControlNumbers(tx: Tx, orgId: string, count: number): Promise<number> {
  const row = await tx
    .updateTable('edi_profiles')
    .set({ last_control_number: sql<number>`last_control_number + ${count}` })
    .where('org_id', '=', orgId)
    .returning('last_control_number')
    .executeTakeFirst();
  if (row === undefined) throw new Error(`org ${orgId} has no EDI profile`);
  const last = Number(row.last_control_number);
  // Wrapping to 1 would reuse numbers partners may still hold; running out needs an operator, not a silent repeat.
  if (last > MAX_CONTROL_NUMBER) throw new Error(`org ${orgId} has used every EDI control number`);
  return last - count + 1;
}
