import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import type { Clock } from '../../platform/core/clock.js';
import { newId } from '../../platform/core/ids.js';
import type { Db, Tx } from '../../platform/db/schema.js';
import type { ClaimedDelivery, DeliverySender, SendOutcome } from '../../platform/outbox/delivery-sender.js';
import type { SecretVault } from '../../platform/secrets/vault.js';
import { type TargetPolicy, UnsafeTarget } from './safe-target.js';
import { signedHeaders, signingKey } from './signature.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import * as repo from './webhooks.repository.js';
import { parseRetryAfterMs } from '../../platform/outbox/hub-client.js';
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
/** What is read of a receiver's answer; the rest is dropped. */
const RESPONSE_CAP_BYTES = 64 * 1024;
const SNIPPET_CHARS = 500;

type Attempt =
  | { kind: 'delivered'; statusCode: number; snippet: string }
  | { kind: 'retry' | 'rejected'; reason: string; statusCode: number | null; snippet: string | null; retryAfterMs?: number }
  /** Not tried at all (endpoint gone or disabled): no attempt is recorded and the endpoint's health is untouched. */
  | { kind: 'skipped'; reason: string };

/** Reads up to the cap of a response body, then stops reading. */
async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_CAP_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_CAP_BYTES).toString('utf8');
}

/**
 * Sends webhook deliveries to their endpoints, signed per the Standard Webhooks spec with the event id as `webhook-id`
 * (the same on every redelivery), and records each attempt where the org sees it.
 */
export class WebhookSender implements DeliverySender {
  readonly maxBatch = repo.WEBHOOK_MAX_BATCH;
  private readonly agent: Agent;

  constructor(
    readonly destination: typeof WEBHOOK_DESTINATION | typeof INLINE_WEBHOOK_DESTINATION,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly vault: SecretVault,
    private readonly policy: TargetPolicy,
    private readonly orgs: OrgsService,
    private readonly settings: WebhooksSettings,
  ) {
    // No redirects are followed (undici's request never does); each socket's address is checked as it connects.
    this.agent = new Agent({ keepAliveTimeout: 30_000, connect: { lookup: policy.connectLookup() } });
  }

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
    const keys = new Map<string, Promise<Buffer[]>>();
    const keysOf = (endpoint: repo.EndpointRow) => {
      let found = keys.get(endpoint.id);
      if (found === undefined) keys.set(endpoint.id, (found = this.signingKeysOf(endpoint, now)));
      return found;
    };
    const results = await Promise.all(
      batch.map(async (row) => {
        const event = events.get(row.id);
        const endpoint = endpoints.get(row.target ?? '');
        const started = performance.now();
        const attempt: Attempt =
          endpoint === undefined || endpoint.org_id !== row.org_id
            ? { kind: 'skipped', reason: 'the endpoint was deleted' }
            : endpoint.enabled !== 1
              ? { kind: 'skipped', reason: 'the endpoint is disabled' }
              : event === undefined
                ? { kind: 'skipped', reason: 'the event is no longer kept (WEBHOOK_EVENTS_KEEP_MS)' }
                : await this.post(event, endpoint, keysOf, now);
        return { row, endpoint, attempt, durationMs: Math.round(performance.now() - started) };
      }),
    );
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
    return this.agent.close();
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
  private async signingKeysOf(endpoint: repo.EndpointRow, now: Date): Promise<Buffer[]> {
    const current = await this.vault.decrypt(endpoint.secret_ciphertext, endpoint.id);
    const previous = endpoint.previous_secret_ciphertext !== null && endpoint.previous_secret_until !== null && endpoint.previous_secret_until > now.toISOString() ? endpoint.previous_secret_ciphertext : null;
    return previous === null ? [signingKey(current)] : [signingKey(current), signingKey(await this.vault.decrypt(previous, endpoint.id))];
  }

  private async post(event: { id: string; body: string }, endpoint: repo.EndpointRow, keysOf: (e: repo.EndpointRow) => Promise<Buffer[]>, now: Date): Promise<Attempt> {
    let target: URL;
    try {
      ({ url: target } = await this.policy.resolve(endpoint.url));
    } catch (err) {
      if (err instanceof UnsafeTarget) return { kind: 'rejected', reason: `unsafe target: ${err.message}`, statusCode: null, snippet: null };
      throw err;
    }
    const timeoutMs = this.settings.WEBHOOK_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'tire-gateway-webhooks', ...signedHeaders(await keysOf(endpoint), event.id, now, event.body) },
        body: event.body,
        signal,
      });
      const snippet = (await readCapped(res.body)).trim().slice(0, SNIPPET_CHARS);
      const { statusCode } = res;
      if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', statusCode, snippet };
      const reason = `endpoint answered ${statusCode}`;
      const transient = statusCode === 408 || statusCode === 429 || statusCode >= 500;
      if (!transient) return { kind: 'rejected', reason, statusCode, snippet };
      const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'], now.getTime(), this.settings.WEBHOOK_RETRY_AFTER_MAX_MS);
      return { kind: 'retry', reason, statusCode, snippet, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    } catch (err) {
      if (signal.aborted) return { kind: 'retry', reason: `endpoint did not answer within ${timeoutMs} ms`, statusCode: null, snippet: null };
      const cause = err instanceof Error && err.cause instanceof UnsafeTarget ? err.cause : err;
      if (cause instanceof UnsafeTarget) return { kind: 'rejected', reason: `unsafe target: ${cause.message}`, statusCode: null, snippet: null };
      return { kind: 'retry', reason: `endpoint unreachable: ${err instanceof Error ? err.message : String(err)}`, statusCode: null, snippet: null };
    }
  }
}
