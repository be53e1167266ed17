import type { YieldToRequests } from '../../platform/core/yield-to-requests.js';
import type { Tx } from '../../platform/db/schema.js';
import type { ClaimedDelivery, DeliverySender, SendOutcome } from '../../platform/outbox/delivery-sender.js';
import { FANOUT_MAX_BATCH } from './event-fan-out.js';
import { type FanOutPayload, type SubscribedEvent, fanOutEvents } from './fan-out.js';
import { FANOUT_DESTINATION } from './webhook-sender.js';

/**
 * Fans out the `webhook_fanout` outbox rows a build before migration 0047 queues beside this one during a rolling
 * upgrade (this build names the endpoints in the event row: EventFanOut; the migration moved the rows queued before it).
 * Each row's deliveries are written in the transaction that records it delivered, insert-or-ignore, so a row taken
 * twice (its lease ran out) queues each delivery once.
 */
export class FanOutSender implements DeliverySender {
  readonly destination = FANOUT_DESTINATION;
  readonly maxBatch = FANOUT_MAX_BATCH;

  constructor(readonly yields: YieldToRequests) {}

  send(_batchId: string, batch: ClaimedDelivery[]): Promise<SendOutcome> {
    const outcome: SendOutcome = { delivered: [], duplicates: 0, rejected: [], retry: null };
    const events: SubscribedEvent[] = [];
    for (const row of batch) {
      const payload = parsePayload(row.payload);
      if (payload === undefined) {
        outcome.rejected.push({ id: row.id, reason: 'not a fan-out payload' });
        continue;
      }
      events.push({ orgId: row.org_id, event: { id: payload.event_id, type: row.type, created_at: payload.created_at }, endpointIds: payload.endpoint_ids });
      outcome.delivered.push(row.id);
    }
    outcome.record = (tx: Tx) => fanOutEvents(tx, events);
    return Promise.resolve(outcome);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function parsePayload(text: string): FanOutPayload | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<FanOutPayload>;
    if (typeof parsed.event_id !== 'string' || typeof parsed.created_at !== 'string' || !Array.isArray(parsed.endpoint_ids)) return undefined;
    return { event_id: parsed.event_id, created_at: parsed.created_at, endpoint_ids: parsed.endpoint_ids.filter((id): id is string => typeof id === 'string') };
  } catch {
    return undefined;
  }
}
