import type { YieldToRequests } from '../../platform/core/yield-to-requests.js';
import type { Dialect } from '../../platform/db/database.js';
import type { Db } from '../../platform/db/schema.js';
import type { DrainStep } from '../../platform/outbox/delivery-sender.js';
import { type SubscribedEvent, fanOutEvents } from './fan-out.js';
import { FANOUT_DESTINATION } from './webhook-sender.js';
import * as repo from './webhooks.repository.js';

/** Events fanned out at once: their deliveries and outbox rows are written in one transaction. */
export const FANOUT_MAX_BATCH = 100;

/**
 * Turns pending events (their rows name the endpoints subscribed when they happened: `fanout`) into their deliveries,
 * oldest first, in the delivery worker's rounds before the sends (so what it queues goes out in the same round). One
 * transaction takes a batch, writes its deliveries (fanOutEvents: insert-or-ignore with deterministic ids) and clears
 * the batch's `fanout`: a process killed midway leaves them pending, and a batch taken twice queues each delivery once.
 * On PostgreSQL the batch is locked, skipping events another process holds, so several processes share the work.
 */
export class EventFanOut implements DrainStep {
  /** Shown on the outbox's metrics under the destination the fan-out had as an outbox row. */
  readonly name = FANOUT_DESTINATION;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    readonly yields: YieldToRequests,
  ) {}

  async run(): Promise<number> {
    // An idle poll reads without a lock; the write transaction is taken only when there is something to fan out.
    if (!(await repo.anyPendingFanOut(this.db))) return 0;
    return this.db.transaction().execute(async (tx) => {
      const pending = await repo.takePendingFanOuts(tx, this.dialect, FANOUT_MAX_BATCH);
      await fanOutEvents(
        tx,
        pending.map((row): SubscribedEvent => ({ orgId: row.org_id, event: { id: row.id, type: row.type, created_at: row.created_at }, endpointIds: endpointIdsOf(row.fanout) })),
      );
      await repo.clearFanOuts(
        tx,
        pending.map((row) => row.id),
      );
      return pending.length;
    });
  }

  pending(): Promise<{ depth: number; oldest_created_at: string | null }> {
    return repo.pendingFanOutStats(this.db);
  }
}

/** The endpoint ids a `fanout` value names; a value that is not a JSON array of ids names none (it is cleared, as done). */
function endpointIdsOf(fanout: string): string[] {
  try {
    const parsed = JSON.parse(fanout) as unknown;
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
