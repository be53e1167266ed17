import type { Executor } from '../../../platform/db/schema.js';
import type { MarkRow } from './cursors.js';

/** Rows per upsert statement: 5 parameters a row stays far below both dialects' parameter limits. */
const CHUNK = 500;

/** Every mark of one connection (the primary key's prefix): a poll holds them in memory, a few hundred bytes a machine. */
export function loadMarks(db: Executor, orgId: string, connectionId: string): Promise<MarkRow[]> {
  return db.selectFrom('telematics_marks').select(['equipment_id', 'element', 'mark']).where('org_id', '=', orgId).where('connection_id', '=', connectionId).execute();
}

/** Stores the marks a poll moved; the poll holds the connection's lease, so nobody else moves them meanwhile. */
export async function saveMarks(tx: Executor, orgId: string, connectionId: string, rows: readonly MarkRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await tx
      .insertInto('telematics_marks')
      .values(rows.slice(i, i + CHUNK).map((r) => ({ ...r, connection_id: connectionId, org_id: orgId })))
      .onConflict((oc) => oc.columns(['connection_id', 'equipment_id', 'element']).doUpdateSet((eb) => ({ mark: eb.ref('excluded.mark') })))
      .execute();
  }
}

export async function deleteMarks(tx: Executor, orgId: string, connectionId: string): Promise<void> {
  await tx.deleteFrom('telematics_marks').where('org_id', '=', orgId).where('connection_id', '=', connectionId).execute();
}
