import type { Clock } from '../../platform/core/clock.js';
import { newId } from '../../platform/core/ids.js';
import type { YieldToRequests } from '../../platform/core/yield-to-requests.js';
import type { Db, Tx } from '../../platform/db/schema.js';
import type { ClaimedDelivery, DeliverySender, SendOutcome } from '../../platform/outbox/delivery-sender.js';
import type { SecretVault } from '../../platform/secrets/vault.js';
import { signingKey } from './signature.js';
import type { Judged, PostJob } from './webhook-post.js';
import type { WebhookPoster } from './webhook-poster.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import * as repo from './webhooks.repository.js';
import { type WebhooksSettings, webhookRetryDelayMs } from './webhooks.settings.js';

/**
 * The outbox destination of webhook deliveries: `target` is the endpoint id, `payload` the event id; the body is the
 * event row's, read when sent, so every endpoint and every redelivery gets the same bytes.
 */
export const WEBHOOK_DESTINATION = 'webhook_event';

/**
 * Deliveries queued by builds before 0043, `payload` the JSON body itself. A destination of its own, so a previous
 * build running beside this one during a rolling upgrade never claims a row that carries no body; this build sends both.
 */
export const INLINE_WEBHOOK_DESTINATION = 'webhook';

/**
 * The outbox destination of an event's fan-out as builds before 0047 queue it: `payload` names the event and the
 * endpoints subscribed when it happened (FanOutPayload); FanOutSender still takes the rows a previous build queues
 * during a rolling upgrade. This build keeps the pending fan-out in the event row, shown on the outbox's metrics under
 * this name.
 */
export const FANOUT_DESTINATION = 'webhook_fanout';
type Attempt =
  | Judged
  /** Not tried at all (endpoint gone or disabled): no attempt is recorded and the endpoint's health is untouched. */
  | { kind: 'skipped'; reason: string };

/**
 * Sends webhook deliveries to their endpoints, signed per the Standard Webhooks spec with the event id as `webhook-id`
 * (the same on every redelivery), and records each attempt where the org sees it.
 */
export class WebhookSender implements DeliverySender {
  readonly maxBatch = repo.WEBHOOK_MAX_BATCH;

  constructor(
    readonly destination: typeof WEBHOOK_DESTINATION | typeof INLINE_WEBHOOK_DESTINATION,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly vault: SecretVault,
    /** Shared by the senders of both destinations; what it posts is judged by the target policy it was built with. */
    private readonly poster: WebhookPoster,
    private readonly orgs: OrgsService,
    private readonly settings: WebhooksSettings,
    /** Shared with the fan-out: webhook work takes at most its share of the time while requests are in flight. */
    readonly yields: YieldToRequests,
  ) {}

  /** Each row's event id (its webhook-id) and body, by delivery id; none for a row whose event is gone (retention). */
  private async eventsOf(batch: readonly ClaimedDelivery[]): Promise<Map<string, { id: string; body: string }>> {
    if (this.destination === INLINE_WEBHOOK_DESTINATION) return new Map(batch.map((row) => [row.id, { id: (JSON.parse(row.payload) as { id: string }).id, body: row.payload }]));
    const events = new Map((await repo.eventsByIds(this.db, [...new Set(batch.map((row) => row.payload))])).map((e) => [e.id, e]));
    const found = new Map<string, { id: string; body: string }>();
    for (const row of batch) {
      const event = events.get(row.payload);
      if (event !== undefined && event.org_id === row.org_id) found.set(row.id, event);
    }
    return found;
  }

  async send(_batchId: string, batch: ClaimedDelivery[]): Promise<SendOutcome> {
    const events = await this.eventsOf(batch);
    const endpoints = new Map((await repo.endpointsByIds(this.db, [...new Set(batch.map((row) => row.target ?? ''))])).map((e) => [e.id, e]));
    const now = this.clock.now();
    // Each endpoint's secrets are decrypted and decoded once per batch, not once per delivery.
    const keys = new Map<string, Promise<Uint8Array[]>>();
    const keysOf = (endpoint: repo.EndpointRow) => {
      let found = keys.get(endpoint.id);
      if (found === undefined) keys.set(endpoint.id, (found = this.signingKeysOf(endpoint, now)));
      return found;
    };
    const checked = batch.map((row) => {
      const event = events.get(row.id);
      const endpoint = endpoints.get(row.target ?? '');
      const skipped: Attempt | undefined =
        endpoint === undefined || endpoint.org_id !== row.org_id
          ? { kind: 'skipped', reason: 'the endpoint was deleted' }
          : endpoint.enabled !== 1
            ? { kind: 'skipped', reason: 'the endpoint is disabled' }
            : event === undefined
              ? { kind: 'skipped', reason: 'the event is no longer kept (WEBHOOK_EVENTS_KEEP_MS)' }
              : undefined;
      return { row, endpoint, event, skipped };
    });
    const jobs: PostJob[] = [];
    for (const { endpoint, event, skipped } of checked) {
      if (skipped === undefined && endpoint !== undefined && event !== undefined) jobs.push({ url: endpoint.url, eventId: event.id, body: event.body, keys: await keysOf(endpoint), nowMs: now.getTime() });
    }
    // The whole batch's POSTs in one hand-over (to the send thread when it is on); results come back in job order.
    const posted = await this.poster.post(jobs);
    let next = 0;
    const results = checked.map(({ row, endpoint, skipped }) => {
      if (skipped !== undefined) return { row, endpoint, attempt: skipped, durationMs: 0 };
      const result = posted[next++];
      if (result === undefined) throw new Error(`the webhook poster answered ${posted.length} of ${jobs.length} deliveries`);
      const { durationMs, ...judged } = result;
      const attempt: Attempt = judged;
      return { row, endpoint, attempt, durationMs };
    });
    const attempts: repo.AttemptRow[] = results.flatMap(({ row, attempt, durationMs }) =>
      attempt.kind === 'skipped'
        ? []
        : [{
            id: newId('wha', now),
            org_id: row.org_id,
            delivery_id: row.id,
            attempted_at: now.toISOString(),
            status_code: attempt.statusCode,
            duration_ms: durationMs,
            error: attempt.kind === 'delivered' ? null : attempt.reason,
            response_snippet: attempt.snippet,
          }],
    );
    // The attempts and the endpoints' health are written in the transaction that records the outcome: one commit a batch.
    const record = async (tx: Tx) => {
      await repo.insertAttempts(tx, attempts);
      await this.recordHealth(tx, results, now);
    };
    const outcome: SendOutcome = { delivered: [], duplicates: 0, rejected: [], retry: null, record };
    const retryIds: string[] = [];
    let retryReason = '';
    const waits = new Map<string, number>();
    for (const { row, attempt } of results) {
      if (attempt.kind === 'delivered') outcome.delivered.push(row.id);
      else if (attempt.kind === 'skipped' || attempt.kind === 'rejected') outcome.rejected.push({ id: row.id, reason: attempt.reason });
      else if (row.attempts >= this.settings.WEBHOOK_MAX_ATTEMPTS) outcome.rejected.push({ id: row.id, reason: `failed after ${row.attempts} attempts: ${attempt.reason}` });
      else {
        retryIds.push(row.id);
        retryReason ||= attempt.reason;
        // Per endpoint: its Retry-After holds back its own deliveries, not every endpoint's.
        if (attempt.retryAfterMs !== undefined && row.target !== null) waits.set(row.target, Math.max(waits.get(row.target) ?? 0, attempt.retryAfterMs));
      }
    }
    if (retryIds.length > 0) outcome.retry = { ids: retryIds, reason: retryReason };
    if (waits.size > 0) outcome.waits = [...waits].map(([target, ms]) => ({ target, ms }));
    return outcome;
  }

  retryDelayMs(attempts: number): number {
    return webhookRetryDelayMs(this.settings.WEBHOOK_RETRY_SCHEDULE, attempts);
  }

  close(): Promise<void> {
    return this.poster.close();
  }

  /** An endpoint that answered clears its failing mark; one that has failed every attempt since too long ago is disabled. */
  private async recordHealth(tx: Tx, results: readonly { endpoint: repo.EndpointRow | undefined; attempt: Attempt }[], now: Date): Promise<void> {
    const byEndpoint = new Map<string, { endpoint: repo.EndpointRow; ok: boolean; reason: string }>();
    for (const { endpoint, attempt } of results) {
      if (endpoint === undefined || attempt.kind === 'skipped') continue;
      const seen = byEndpoint.get(endpoint.id) ?? { endpoint, ok: false, reason: '' };
      if (attempt.kind === 'delivered') seen.ok = true;
      else seen.reason ||= attempt.reason;
      byEndpoint.set(endpoint.id, seen);
    }
    const at = now.toISOString();
    for (const { endpoint, ok, reason } of byEndpoint.values()) {
      if (ok) {
        if (endpoint.failing_since !== null) await repo.updateEndpoint(tx, endpoint.org_id, endpoint.id, { failing_since: null });
      } else if (endpoint.failing_since === null) {
        await repo.updateEndpoint(tx, endpoint.org_id, endpoint.id, { failing_since: at });
      } else if (now.getTime() - Date.parse(endpoint.failing_since) >= this.settings.WEBHOOK_DISABLE_AFTER_MS) {
        const why = `disabled by the gateway at ${at}: every attempt has failed since ${endpoint.failing_since} (last: ${reason})`;
        await repo.updateEndpoint(tx, endpoint.org_id, endpoint.id, { enabled: 0, disabled_reason: why, updated_at: at });
        await this.orgs.bumpRevision(tx, endpoint.org_id, repo.ENDPOINTS_REVISION);
      }
    }
  }

  /** The signing keys of an endpoint's secrets: the current one, and the previous during a rotation's grace period. */
  private async signingKeysOf(endpoint: repo.EndpointRow, now: Date): Promise<Uint8Array[]> {
    const current = await this.vault.decrypt(endpoint.secret_ciphertext, endpoint.id);
    const previous = endpoint.previous_secret_ciphertext !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now.toISOString() ? endpoint.previous_secret_ciphertext : null;
    // Copied out of Buffer's shared pool: a key handed to the send thread carries its own 32 bytes, not the pool's 8 KB.
    const own = (secret: string) => new Uint8Array(signingKey(secret));
    return previous === null ? [own(current)] : [own(current), own(await this.vault.decrypt(previous, endpoint.id))];
  }
}
