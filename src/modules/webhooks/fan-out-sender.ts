import type { YieldToRequests } from '../../platform/core/yield-to-requests.js';
import type { Db, Tx } from '../../platform/db/schema.js';
import type { ClaimedDelivery, DeliverySender, SendOutcome } from '../../platform/outbox/delivery-sender.js';
import { type EventHead, type FanOutPayload, queueToEndpoints } from './fan-out.js';
import { FANOUT_DESTINATION } from './webhook-sender.js';
import * as repo from './webhooks.repository.js';

/** Fan-out rows taken at once: a batch's deliveries and their outbox rows are written in one transaction. */
const FANOUT_MAX_BATCH = 100;

/**
 * Turns each `webhook_fanout` row into its event's deliveries: one per endpoint that was subscribed when the event
 * happened (the row names them) and is still the org's and enabled now. They are written in the transaction that
 * records the fan-out row delivered, with deterministic ids and insert-or-ignore, so a row taken twice (its lease ran
 * out) queues each delivery once.
 */
export class FanOutSender implements DeliverySender {
  readonly destination = FANOUT_DESTINATION;
  readonly maxBatch = FANOUT_MAX_BATCH;

  constructor(
    private readonly db: Db,
    readonly yields: YieldToRequests,
  ) {}

  async send(_batchId: string, batch: ClaimedDelivery[]): Promise<SendOutcome> {
    const outcome: SendOutcome = { delivered: [], duplicates: 0, rejected: [], retry: null };
    const planned: { row: ClaimedDelivery; payload: FanOutPayload }[] = [];
    for (const row of batch) {
      const payload = parsePayload(row.payload);
      if (payload === undefined) outcome.rejected.push({ id: row.id, reason: 'not a fan-out payload' });
      else planned.push({ row, payload });
    }
    const ids = [...new Set(planned.flatMap((p) => p.payload.endpoint_ids))];
    const endpoints = new Map((await repo.endpointsByIds(this.db, ids)).map((e) => [e.id, e]));
    const items = planned.map(({ row, payload }) => {
      const event: EventHead = { id: payload.event_id, type: row.type, created_at: payload.created_at };
      // Another org's id never matches (a row names its own org's endpoints); a disabled or deleted endpoint gets nothing.
      const endpointIds = payload.endpoint_ids.filter((id) => {
        const endpoint = endpoints.get(id);
        return endpoint !== undefined && endpoint.org_id === row.org_id && endpoint.enabled === 1;
      });
      outcome.delivered.push(row.id);
      return { orgId: row.org_id, event, endpointIds };
    });
    outcome.record = async (tx: Tx) => {
      await queueToEndpoints(tx, items);
    };
    return outcome;
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
