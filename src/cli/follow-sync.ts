import { setTimeout as sleep } from 'node:timers/promises';
import type { Gateway } from '../gateway.js';
import type { Sync } from '../modules/telematics/telematics.schemas.js';
import { AppError } from '../platform/core/errors.js';
import type { OutputOptions } from './output.js';
import { longJob } from './progress.js';

/** How often the sync is read again while another process runs it (or it waits to retry). */
const WATCH_MS = 500;

const ENDED = new Set<Sync['status']>(['completed', 'failed', 'cancelled']);

/** What the operator can do after Ctrl-C: the sync goes on (or is resumed), and how to see or cancel it. */
export function afterInterrupt(org: string, sync: Pick<Sync, 'id' | 'connection_id'>): string {
  const at = `/v1/telematics/connections/${sync.connection_id}/syncs/${sync.id}`;
  return (
    `stopped following sync ${sync.id}; it goes on in a running serve, or here again with ` +
    `gateway connections replay ${sync.connection_id} --org ${org} --resume ${sync.id}; ` +
    `see it with gateway connections syncs ${sync.connection_id} --org ${org} (GET ${at}), cancel it with gateway connections cancel-sync ${sync.connection_id} ${sync.id} --org ${org} (POST ${at}/cancel)`
  );
}

/**
 * Follows a replay sync to its end with a progress line of machines done/total. While a `serve` process beats on the
 * database its sync worker runs the sync and this only watches; with none, the sync is run here (an operator's CLI
 * is expected to do the job it was asked). A failed or cancelled sync is an error.
 */
export async function followSync(gw: Gateway, orgId: string, org: string, queued: Sync, opts: OutputOptions): Promise<Sync> {
  const { syncs, syncWorker } = gw.services;
  const sync = await longJob('machines replayed', opts, afterInterrupt(org, queued), async (tick) => {
    const show = (s: { machines_done: number; machines_total: number }) => tick(s.machines_done, s.machines_total > 0 ? s.machines_total : undefined);
    for (;;) {
      if (!(await gw.instances.othersLive())) await syncWorker.runOne(queued.id, show);
      const now = await syncs.get(gw.database.db, orgId, queued.connection_id, queued.id);
      show(now.progress);
      if (ENDED.has(now.status)) return now;
      await sleep(WATCH_MS);
    }
  });
  if (sync.status === 'failed') throw new AppError('conflict', `sync ${sync.id} failed: ${sync.failure_reason ?? 'no reason recorded'}`);
  if (sync.status === 'cancelled') throw new AppError('conflict', `sync ${sync.id} was cancelled${sync.failure_reason ? `: ${sync.failure_reason}` : ''}`);
  return sync;
}
