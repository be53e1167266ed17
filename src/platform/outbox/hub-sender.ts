import type { DeliverySender, SendOutcome } from './delivery-sender.js';
import { HUB_MAX_BATCH, type HubClient } from './hub-client.js';
import { HUB_DESTINATION } from './outbox.js';
import type { ClaimedDelivery } from './outbox.repository.js';

/** Sends outbox rows of the hub destination as one hub batch and maps the hub's answer per event. */
export class HubSender implements DeliverySender {
  readonly destination = HUB_DESTINATION;
  readonly maxBatch = HUB_MAX_BATCH;

  constructor(private readonly client: HubClient) {}

  async send(batchId: string, batch: ClaimedDelivery[], opts: { timeoutMs: number }): Promise<SendOutcome> {
    const ids = batch.map((row) => row.id);
    const result = await this.client.send(batchId, batch.map((row) => row.payload), opts);
    if (result.kind === 'retry') {
      const retry = { ids, reason: result.reason, ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }) };
      return { delivered: [], duplicates: 0, rejected: [], retry };
    }
    if (result.kind === 'failed') {
      return { delivered: [], duplicates: 0, rejected: ids.map((id) => ({ id, reason: result.reason })), retry: null };
    }
    const answered = new Set([...result.accepted, ...result.duplicates, ...result.rejected.map((r) => r.id)]);
    const sent = new Set(ids);
    // Only ids we sent count: a confused hub must not mark other rows delivered.
    const delivered = [...result.accepted, ...result.duplicates].filter((id) => sent.has(id));
    const rejected = result.rejected.filter((r) => sent.has(r.id));
    const missing = ids.filter((id) => !answered.has(id));
    return {
      delivered,
      duplicates: result.duplicates.filter((id) => sent.has(id)).length,
      rejected,
      retry: missing.length === 0 ? null : { ids: missing, reason: 'hub did not answer for the event' },
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
