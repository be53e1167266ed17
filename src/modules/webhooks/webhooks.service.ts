import { z } from 'zod';
import { AppError, invalidInput, notFound } from '../../platform/core/errors.js';
import type { Clock } from '../../platform/core/clock.js';
import { newId } from '../../platform/core/ids.js';
import { decodeCursor, page } from '../../platform/core/pagination.js';
import type { Executor, Tx } from '../../platform/db/schema.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import type { DeliveriesService, DeliveryView } from '../../platform/outbox/deliveries.service.js';
import type { SecretVault } from '../../platform/secrets/vault.js';
import { EVENT_TYPES } from './catalog.js';
import { type EventBody, queueToEndpoints } from './fan-out.js';
import { type TargetPolicy, UnsafeTarget } from './safe-target.js';
import { newSecret } from './signature.js';
import * as repo from './webhooks.repository.js';
import type { CreateEndpointInput, Delivery, Endpoint, UpdateEndpointInput } from './webhooks.schemas.js';
import type { WebhooksSettings } from './webhooks.settings.js';

const timeCursor = z.object({ created_at: z.string(), id: z.string() });

function present(row: repo.EndpointRow, now: Date): Endpoint {
  const graceLeft = row.previous_secret_until !== null && row.previous_secret_until > now.toISOString();
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types) as string[],
    enabled: row.enabled === 1,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since,
    previous_secret_valid_until: graceLeft ? row.previous_secret_until : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A delivery with where its outbox row stands: none means delivered and purged by retention (only delivered rows are). */
function presentDelivery(row: repo.DeliveryRow, state: DeliveryView | undefined, attempts: readonly repo.AttemptRow[]): Delivery {
  const status = state === undefined || state.status === 'delivered' ? 'delivered' : state.status === 'rejected' ? 'failed' : state.status === 'delivering' ? 'delivering' : 'pending';
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    type: row.type,
    status,
    attempt_count: state === undefined ? attempts.length : state.attempts,
    next_attempt_at: status === 'pending' || status === 'delivering' ? (state?.next_attempt_at ?? null) : null,
    last_error: state?.last_error ?? null,
    created_at: row.created_at,
    delivered_at: state === undefined ? (attempts.at(-1)?.attempted_at ?? null) : state.delivered_at,
    attempts: attempts.map((a) => ({
      attempted_at: a.attempted_at,
      status_code: a.status_code === null ? null : Number(a.status_code),
      duration_ms: Number(a.duration_ms),
      error: a.error,
      response_snippet: a.response_snippet,
    })),
  };
}

/** An org's webhook endpoints, their deliveries and its events (org-scoped throughout: another org's id is not found). */
export class WebhooksService {
  constructor(
    private readonly clock: Clock,
    private readonly outbox: DeliveriesService,
    private readonly orgs: OrgsService,
    private readonly vault: SecretVault,
    private readonly policy: TargetPolicy,
    private readonly settings: WebhooksSettings,
  ) {}

  /**
   * Refuses a URL the gateway would not deliver to: its form, and where its host resolves now. Called before the write's
   * transaction (a DNS lookup can be slow); each delivery checks again.
   */
  async checkUrl(url: string): Promise<void> {
    try {
      await this.policy.resolve(url);
    } catch (err) {
      if (err instanceof UnsafeTarget) throw invalidInput(err.message, { field: 'url' });
      throw err;
    }
  }

  /** Creates an endpoint whose URL checkUrl passed. */
  async create(tx: Tx, orgId: string, input: CreateEndpointInput): Promise<{ endpoint: Endpoint; secret: string }> {
    const now = this.clock.now();
    const at = now.toISOString();
    const id = newId('whe', now);
    const secret = newSecret();
    const row: repo.EndpointRow = {
      id,
      org_id: orgId,
      url: input.url,
      description: input.description ?? null,
      event_types: JSON.stringify(input.event_types),
      enabled: 1,
      disabled_reason: null,
      secret_ciphertext: await this.vault.encrypt(secret, id),
      previous_secret_ciphertext: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: at,
      updated_at: at,
    };
    await repo.insertEndpoint(tx, row);
    await this.endpointsChanged(tx, orgId);
    return { endpoint: present(row, now), secret };
  }

  async list(db: Executor, orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<{ endpoints: Endpoint[]; next_cursor: string | null }> {
    const after = decodeCursor(query.cursor, z.string());
    const rows = await repo.listEndpoints(db, orgId, { ...(after === undefined ? {} : { afterId: after }), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (r) => r.id);
    const now = this.clock.now();
    return { endpoints: items.map((r) => present(r, now)), next_cursor };
  }

  private async find(db: Executor, orgId: string, id: string): Promise<repo.EndpointRow> {
    const row = await repo.findEndpoint(db, orgId, id);
    if (row === undefined) throw notFound(`webhook endpoint ${id}`);
    return row;
  }

  async get(db: Executor, orgId: string, id: string): Promise<Endpoint> {
    return present(await this.find(db, orgId, id), this.clock.now());
  }

  async update(tx: Tx, orgId: string, id: string, input: UpdateEndpointInput): Promise<Endpoint> {
    await this.find(tx, orgId, id);
    const now = this.clock.now();
    const updated = await repo.updateEndpoint(tx, orgId, id, {
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.event_types === undefined ? {} : { event_types: JSON.stringify(input.event_types) }),
      ...(input.description === undefined ? {} : { description: input.description }),
      // Enabling again starts its health afresh; the reason it was disabled goes with the disabling.
      ...(input.enabled === undefined ? {} : { enabled: input.enabled ? 1 : 0, disabled_reason: null, failing_since: null }),
      updated_at: now.toISOString(),
    });
    if (updated === undefined) throw notFound(`webhook endpoint ${id}`);
    await this.endpointsChanged(tx, orgId);
    return present(updated, now);
  }

  async delete(tx: Tx, orgId: string, id: string): Promise<{ deleted: true; id: string }> {
    if (!(await repo.deleteEndpoint(tx, orgId, id))) throw notFound(`webhook endpoint ${id}`);
    await this.endpointsChanged(tx, orgId);
    return { deleted: true, id };
  }

  /** In the change's transaction: the fan-out's cache of the org's endpoints (in every process) is stale from its commit. */
  private endpointsChanged(tx: Tx, orgId: string): Promise<void> {
    return this.orgs.bumpRevision(tx, orgId, repo.ENDPOINTS_REVISION);
  }

  /** A new secret; the current one keeps signing beside it for WEBHOOK_SECRET_GRACE_MS. */
  async rotateSecret(tx: Tx, orgId: string, id: string): Promise<{ endpoint: Endpoint; secret: string }> {
    const row = await this.find(tx, orgId, id);
    const now = this.clock.now();
    const secret = newSecret();
    const updated = await repo.updateEndpoint(tx, orgId, id, {
      secret_ciphertext: await this.vault.encrypt(secret, id),
      previous_secret_ciphertext: row.secret_ciphertext,
      previous_secret_until: new Date(now.getTime() + this.settings.WEBHOOK_SECRET_GRACE_MS).toISOString(),
      updated_at: now.toISOString(),
    });
    if (updated === undefined) throw notFound(`webhook endpoint ${id}`);
    return { endpoint: present(updated, now), secret };
  }

  /** Queues a `webhook.test` event to this endpoint only (not to the events API: it is about the endpoint, not the org's data). */
  async sendTest(tx: Tx, orgId: string, id: string): Promise<Delivery> {
    const row = await this.find(tx, orgId, id);
    const now = this.clock.now();
    const body: EventBody = { id: newId('evt', now), type: 'webhook.test', created_at: now.toISOString(), data: { endpoint_id: row.id, url: row.url } };
    // Its row holds the body the delivery sends; the events API leaves test events out.
    await repo.insertEvents(tx, [{ id: body.id, org_id: orgId, type: body.type, created_at: body.created_at, body: JSON.stringify(body), fanout: null }]);
    // Straight to its endpoint, not through a fan-out row: the answer shows the delivery.
    const [deliveryId] = await queueToEndpoints(tx, [{ orgId, event: body, endpointIds: [row.id] }]);
    return this.delivery(tx, orgId, id, deliveryId ?? '');
  }

  async deliveries(db: Executor, orgId: string, endpointId: string, query: { limit: number; cursor?: string | undefined }): Promise<{ deliveries: Delivery[]; next_cursor: string | null }> {
    await this.find(db, orgId, endpointId);
    const before = decodeCursor(query.cursor, timeCursor);
    const rows = await repo.listDeliveries(db, orgId, endpointId, { ...(before === undefined ? {} : { before }), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (r) => ({ created_at: r.created_at, id: r.id }));
    return { deliveries: await this.present(db, orgId, items), next_cursor };
  }

  private async present(db: Executor, orgId: string, rows: readonly repo.DeliveryRow[]): Promise<Delivery[]> {
    const ids = rows.map((r) => r.id);
    const states = await this.outbox.views(db, ids);
    const attempts = await repo.attemptsOf(db, orgId, ids);
    return rows.map((r) => presentDelivery(r, states.get(r.id), attempts.filter((a) => a.delivery_id === r.id)));
  }

  private async delivery(db: Executor, orgId: string, endpointId: string, deliveryId: string): Promise<Delivery> {
    const row = await repo.findDelivery(db, orgId, endpointId, deliveryId);
    if (row === undefined) throw notFound(`delivery ${deliveryId}`);
    const [delivery] = await this.present(db, orgId, [row]);
    if (delivery === undefined) throw notFound(`delivery ${deliveryId}`);
    return delivery;
  }

  /** Sends a delivery again now, with the same webhook-id: a failed one, or one waiting for its next attempt. */
  async retry(tx: Tx, orgId: string, endpointId: string, deliveryId: string): Promise<Delivery> {
    await this.find(tx, orgId, endpointId);
    const current = await this.delivery(tx, orgId, endpointId, deliveryId);
    if (current.status === 'delivered') throw new AppError('invalid_transition', `delivery ${deliveryId} was delivered, it cannot be sent again; read its event at GET /v1/events/${current.event_id}`, { requested: 'pending', status: 'delivered', allowed: [] }, undefined, 'delivery_id');
    if (current.status === 'delivering') throw new AppError('concurrent_change', `delivery ${deliveryId} is being sent right now`, undefined, undefined, 'delivery_id');
    await this.outbox.retryIn(tx, orgId, deliveryId);
    return this.delivery(tx, orgId, endpointId, deliveryId);
  }

  async events(
    db: Executor,
    orgId: string,
    query: { type?: string | undefined; created_since?: string | undefined; limit: number; cursor?: string | undefined },
  ): Promise<{ events: EventBody[]; next_cursor: string | null }> {
    const kept = new Date(this.clock.now().getTime() - this.settings.WEBHOOK_EVENTS_KEEP_MS).toISOString();
    const asked = query.created_since === undefined ? undefined : new Date(query.created_since).toISOString();
    const since = asked !== undefined && asked > kept ? asked : kept;
    const before = decodeCursor(query.cursor, timeCursor);
    const rows = await repo.listEvents(db, orgId, { ...(query.type === undefined ? {} : { type: query.type }), since, ...(before === undefined ? {} : { before }), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (r) => ({ created_at: r.created_at, id: r.id }));
    return { events: items.map((r) => JSON.parse(r.body) as EventBody), next_cursor };
  }

  async event(db: Executor, orgId: string, id: string): Promise<EventBody> {
    const kept = new Date(this.clock.now().getTime() - this.settings.WEBHOOK_EVENTS_KEEP_MS).toISOString();
    const row = await repo.findEvent(db, orgId, id);
    if (row === undefined || row.created_at < kept) throw notFound(`event ${id}`);
    return JSON.parse(row.body) as EventBody;
  }

  eventTypes(): { event_types: { type: string; description: string }[] } {
    return { event_types: Object.entries(EVENT_TYPES).map(([type, description]) => ({ type, description })) };
  }
}
