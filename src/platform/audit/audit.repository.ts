import type { Insertable, Selectable } from 'kysely';
import type { AuditEventsTable, Executor } from '../db/schema.js';

type AuditEventListRow = Selectable<AuditEventsTable> & { org_slug: string | null };

export async function insertAuditEvent(db: Executor, row: Insertable<AuditEventsTable>): Promise<void> {
  await db.insertInto('audit_events').values(row).execute();
}

/** Newest first, optionally of one org, before the cursor's sequence number. */
export async function listAuditEvents(db: Executor, opts: { orgId?: string; beforeSeq?: number; limit: number }): Promise<AuditEventListRow[]> {
  let query = db.selectFrom('audit_events').leftJoin('orgs', 'orgs.id', 'audit_events.org_id').selectAll('audit_events').select('orgs.slug as org_slug');
  if (opts.orgId !== undefined) query = query.where('audit_events.org_id', '=', opts.orgId);
  if (opts.beforeSeq !== undefined) query = query.where('audit_events.seq', '<', opts.beforeSeq);
  return query.orderBy('audit_events.seq', 'desc').limit(opts.limit).execute();
}
