import type { Db } from '../../../platform/db/schema.js';
import type { Rejection } from '../../../platform/outbox/delivery-worker.js';

/** How many of the hub's refusals a connection keeps (the newest). */
const KEPT_REJECTIONS = 20;

interface Kept {
  event_id: string;
  reason: string;
  at: string;
}

/** The connection a queued telematics event belongs to, from its payload (`data.connection_id`). */
function connectionOf(payload: string): string | undefined {
  const data = (JSON.parse(payload) as { data?: { connection_id?: unknown } }).data;
  return typeof data?.connection_id === 'string' ? data.connection_id : undefined;
}

/** Keeps the hub's per-event rejections of telematics events on their connections, the newest 20 each. */
export async function keepHubRejections(db: Db, rejections: readonly Rejection[]): Promise<void> {
  const byConnection = new Map<string, { orgId: string; kept: Kept[] }>();
  for (const rejection of rejections) {
    const id = connectionOf(rejection.payload);
    if (id === undefined) continue;
    const entry = byConnection.get(id) ?? { orgId: rejection.orgId, kept: [] };
    entry.kept.push({ event_id: rejection.id, reason: rejection.reason, at: rejection.at });
    byConnection.set(id, entry);
  }
  for (const [id, { orgId, kept }] of byConnection) {
    await db.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('telematics_connections').select('last_hub_rejections').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
      if (row === undefined) return;
      const earlier = row.last_hub_rejections === null ? [] : (JSON.parse(row.last_hub_rejections) as Kept[]);
      const newest = [...kept.reverse(), ...earlier].slice(0, KEPT_REJECTIONS);
      await tx.updateTable('telematics_connections').set({ last_hub_rejections: JSON.stringify(newest) }).where('id', '=', id).execute();
    });
  }
}
