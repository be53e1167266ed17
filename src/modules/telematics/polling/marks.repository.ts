import { PreparedList } from '../../../platform/db/prepared-query.js';
import type { Executor } from '../../../platform/db/schema.js';
import type { MarkRow } from './cursors.js';

/** Rows per upsert statement: 5 parameters a row stays far below both dialects' parameter limits. */
const CHUNK = 100;

type StoredMark = MarkRow & { connection_id: string; org_id: string };

// Compiled once per row count: building a 500-row upsert with Kysely on every save cost a fleet's poll ~20 ms.
const upsertMarks = new PreparedList(
  (db, _v: object, rows: StoredMark[]) =>
    db
      .insertInto('telematics_marks')
      .values(rows)
      .onConflict((oc) => oc.columns(['connection_id', 'equipment_id', 'element']).doUpdateSet((eb) => ({ mark: eb.ref('excluded.mark') }))),
  CHUNK,
);

/** Every mark of one connection (the primary key's prefix): a poll holds them in memory, a few hundred bytes a machine. */
export function loadMarks(db: Executor, orgId: string, connectionId: string): Promise<MarkRow[]> {
  return db.selectFrom('telematics_marks').select(['equipment_id', 'element', 'mark']).where('org_id', '=', orgId).where('connection_id', '=', connectionId).execute();
}

/** Stores the marks a poll moved; the poll holds the connection's lease, so nobody else moves them meanwhile. */
export async function saveMarks(tx: Executor, orgId: string, connectionId: string, rows: readonly MarkRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await upsertMarks.result(tx, {}, rows.slice(i, i + CHUNK).map((r) => ({ equipment_id: r.equipment_id, element: r.element, mark: r.mark, connection_id: connectionId, org_id: orgId })));
  }
}

export async function deleteMarks(tx: Executor, orgId: string, connectionId: string): Promise<void> {
  await tx.deleteFrom('telematics_marks').where('org_id', '=', orgId).where('connection_id', '=', connectionId).execute();
}
