import { Agent } from 'undici';
import { systemClock, type Clock } from '../core/clock.js';
import { withDeadline } from '../core/deadline.js';
import type { DeliverySender, SendOutcome } from './delivery-sender.js';
import { parseRetryAfterMs } from './hub-client.js';
import { PARTNER_DESTINATION } from './outbox.js';
import type { ClaimedDelivery } from './outbox.repository.js';

/** Rows sent at once; they go out in parallel, so a batch takes one timeout at most and stays inside its lease. */
const PARTNER_MAX_BATCH = 20;
const REASON_SNIPPET_CHARS = 200;

type RowOutcome = { kind: 'delivered' } | { kind: 'rejected'; reason: string } | { kind: 'retry'; reason: string; retryAfterMs?: number };

/** POSTs each payload to its row's URL with the row id as Idempotency-Key, so a partner can drop a redelivery. */
export class PartnerSender implements DeliverySender {
  readonly destination = PARTNER_DESTINATION;
  readonly maxBatch = PARTNER_MAX_BATCH;
  // One keep-alive agent for every partner origin.
  private readonly agent = new Agent({ keepAliveTimeout: 30_000 });

  constructor(private readonly clock: Clock = systemClock) {}

  async send(_batchId: string, batch: ClaimedDelivery[], opts: { timeoutMs: number }): Promise<SendOutcome> {
    const results = await Promise.all(batch.map(async (row) => ({ id: row.id, outcome: await this.post(row, opts.timeoutMs) })));
    const delivered = results.filter((r) => r.outcome.kind === 'delivered').map((r) => r.id);
    const rejected = results.flatMap((r) => (r.outcome.kind === 'rejected' ? [{ id: r.id, reason: r.outcome.reason }] : []));
    const retries = results.flatMap((r) => (r.outcome.kind === 'retry' ? [{ id: r.id, outcome: r.outcome }] : []));
    const first = retries[0]?.outcome;
    const retryAfterMs = Math.max(0, ...retries.map((r) => r.outcome.retryAfterMs ?? 0));
    const retry =
      first === undefined ? null : { ids: retries.map((r) => r.id), reason: first.reason, ...(retryAfterMs > 0 ? { retryAfterMs } : {}) };
    return { delivered, duplicates: 0, rejected, retry };
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private post(row: ClaimedDelivery, timeoutMs: number): Promise<RowOutcome> {
    const url = URL.canParse(row.target ?? '') ? new URL(row.target ?? '') : undefined;
    if (url === undefined) return Promise.resolve({ kind: 'rejected', reason: `partner delivery target ${JSON.stringify(row.target)} is not a URL` });
    return withDeadline(timeoutMs, (signal) => this.postWithin(row, url, timeoutMs, signal));
  }

  private async postWithin(row: ClaimedDelivery, url: URL, timeoutMs: number, signal: AbortSignal): Promise<RowOutcome> {
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { 'content-type': row.content_type, 'idempotency-key': row.id },
        body: row.payload,
        signal,
      });
      const text = await res.body.text();
      if (res.statusCode >= 200 && res.statusCode < 300) return { kind: 'delivered' };
      const snippet = text.trim().slice(0, REASON_SNIPPET_CHARS);
      const reason = `partner answered ${res.statusCode}${snippet === '' ? '' : `: ${snippet}`}`;
      if (res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500) {
        const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'], this.clock.now().getTime());
        return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
      }
      return { kind: 'rejected', reason };
    } catch (err) {
      if (signal.aborted) return { kind: 'retry', reason: `partner did not answer within ${timeoutMs} ms` };
      return { kind: 'retry', reason: `partner unreachable: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
}
