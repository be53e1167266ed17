import { createHash } from 'node:crypto';
import type { Clock } from '../../platform/core/clock.js';
import type { Tx } from '../../platform/db/schema.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import { type DeliveryInput, enqueueDeliveries } from '../../platform/outbox/outbox.js';
import { subscribes, webhookTypeOf } from './catalog.js';
import { WEBHOOK_DESTINATION } from './webhook-sender.js';
import * as repo from './webhooks.repository.js';

/** The body of a webhook and of GET /v1/events/{id}: `{ id, type, created_at, data }`. */
export interface EventBody {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** A delivery's id: one per event and endpoint, the same when an event is queued again (a replayed reading). */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return `whd_${createHash('sha256').update(`${eventId}|${endpointId}`).digest('hex').slice(0, 26)}`;
}

/** What each queued hub event becomes for its org's webhooks: an event row, naming the endpoints that subscribe to it. */
interface Planned {
  orgId: string;
  body: EventHead;
  text: string;
}

/** What the delivery rows name of an event: its body without the data, which travels as text. */
export type EventHead = Omit<EventBody, 'data'>;

/** Hub events as the hub payload carries them; webhooks re-shape them into their own body. */
function plan(input: DeliveryInput): Planned | undefined {
  const type = webhookTypeOf(input.type);
  if (type === undefined) return undefined;
  if (input.dataJson !== undefined) {
    // A payload hubDelivery built: its id, time and data text are at hand, so it is neither parsed nor written again.
    const body: EventHead = { id: input.id, type, created_at: input.createdAt };
    return { orgId: input.orgId, body, text: `${JSON.stringify(body).slice(0, -1)},"data":${input.dataJson}}` };
  }
  const hub = JSON.parse(input.payload) as { id: string; occurred_at: string; data: Record<string, unknown> };
  const body: EventBody = { id: hub.id, type, created_at: hub.occurred_at, data: hub.data };
  return { orgId: input.orgId, body, text: JSON.stringify(body) };
}

/**
 * Queues stored events (their rows in webhook_events hold the bodies) to endpoints in `tx`: the delivery rows of the
 * org's view and the outbox rows the worker sends, which name the event rather than carry its body. Ids are
 * deterministic and both inserts keep a row that exists, so queueing the same event to an endpoint twice is a no-op.
 */
export async function queueToEndpoints(tx: Tx, items: readonly { orgId: string; event: EventHead; endpointIds: readonly string[] }[]): Promise<string[]> {
  const deliveries = items.flatMap(({ orgId, event, endpointIds }) =>
    endpointIds.map((endpointId) => ({ id: deliveryIdOf(event.id, endpointId), org_id: orgId, endpoint_id: endpointId, event_id: event.id, type: event.type, created_at: event.created_at })),
  );
  await repo.insertDeliveries(tx, deliveries);
  const rows: DeliveryInput[] = deliveries.map((d) => ({
    id: d.id,
    orgId: d.org_id,
    destination: WEBHOOK_DESTINATION,
    target: d.endpoint_id,
    type: d.type,
    contentType: 'application/json',
    payload: d.event_id,
    createdAt: d.created_at,
  }));
  await enqueueDeliveries(tx, rows);
  return deliveries.map((d) => d.id);
}

/** The payload of a `webhook_fanout` outbox row, as a build before migration 0047 queues it (FanOutSender). */
export interface FanOutPayload {
  event_id: string;
  created_at: string;
  endpoint_ids: string[];
}

/** An event to fan out: its org, its head, and the endpoints subscribed to it when it happened. */
export interface SubscribedEvent {
  orgId: string;
  event: EventHead;
  endpointIds: readonly string[];
}

/**
 * Queues the events' deliveries in `tx`: to each endpoint an event names that is still its org's and enabled (one
 * statement reads them all). Another org's id never matches (an event names its own org's endpoints; a hand edit or a
 * bug could name another's); a disabled or deleted endpoint gets nothing. Ids are deterministic and the inserts keep a
 * row that exists, so fanning an event out twice queues each delivery once.
 */
export async function fanOutEvents(tx: Tx, events: readonly SubscribedEvent[]): Promise<void> {
  const ids = [...new Set(events.flatMap((e) => e.endpointIds))];
  const endpoints = new Map((await repo.endpointsByIds(tx, ids)).map((e) => [e.id, e]));
  const stillSubscribed = (orgId: string, id: string) => {
    const endpoint = endpoints.get(id);
    return endpoint !== undefined && endpoint.org_id === orgId && endpoint.enabled === 1;
  };
  await queueToEndpoints(
    tx,
    events.map(({ orgId, event, endpointIds }) => ({ orgId, event, endpointIds: endpointIds.filter((id) => stillSubscribed(orgId, id)) })),
  );
}

/** Orgs whose endpoints are kept at most; past it the oldest entry goes (it is read again when needed). */
const CACHED_ORGS = 10_000;

/**
 * How long an entry serves even at the same revision: a backstop for writers that do not bump it (a previous build
 * during a rolling upgrade, an operator's hand edit). Changes through this build are seen at once, by the revision.
 */
const CACHE_BACKSTOP_MS = 30_000;

interface Subscribers {
  revision: string;
  readAt: number;
  endpoints: { id: string; types: string[] }[];
}

/**
 * Runs in the transaction that queued the hub events (the change's own): the org's events are kept for the events API,
 * and an event that an enabled endpoint subscribes to names those endpoints in its own row (`fanout`): no other row is
 * written; the fan-out (EventFanOut) turns it into the deliveries after commit, off the change's path. The org's enabled
 * endpoints are cached by the revision its settings carry (OrgsService.revisionOf), which the change's transaction
 * reads there: an order reads its org's settings anyway, so it pays no statement for them.
 */
export class FanOut {
  private readonly byOrg = new Map<string, Subscribers>();

  constructor(
    private readonly orgs: OrgsService,
    private readonly clock: Clock,
  ) {}

  readonly listener = async (tx: Tx, inputs: readonly DeliveryInput[]): Promise<void> => {
    const planned = inputs.map(plan).filter((p): p is Planned => p !== undefined);
    if (planned.length === 0) return;
    const endpointsByOrg = new Map<string, Subscribers['endpoints']>();
    const rows: repo.EventRow[] = [];
    for (const p of planned) {
      let endpoints = endpointsByOrg.get(p.orgId);
      if (endpoints === undefined) endpointsByOrg.set(p.orgId, (endpoints = await this.enabledEndpoints(tx, p.orgId)));
      const subscribed = endpoints.filter((e) => subscribes(e.types, p.body.type)).map((e) => e.id);
      rows.push({ id: p.body.id, org_id: p.orgId, type: p.body.type, created_at: p.body.created_at, body: p.text, fanout: subscribed.length === 0 ? null : JSON.stringify(subscribed) });
    }
    await repo.insertEvents(tx, rows);
  };

  /** The org's enabled endpoints as `tx` sees them: cached while the revision `tx` reads is the one they were read at. */
  private async enabledEndpoints(tx: Tx, orgId: string): Promise<Subscribers['endpoints']> {
    const revision = await this.orgs.revisionOf(tx, orgId, repo.ENDPOINTS_REVISION);
    const now = this.clock.now().getTime();
    const cached = this.byOrg.get(orgId);
    if (cached !== undefined && cached.revision === revision && now - cached.readAt < CACHE_BACKSTOP_MS) return cached.endpoints;
    const endpoints = (await repo.enabledEndpoints(tx, orgId)).map((e) => ({ id: e.id, types: JSON.parse(e.event_types) as string[] }));
    this.byOrg.delete(orgId);
    if (this.byOrg.size >= CACHED_ORGS) this.byOrg.delete(this.byOrg.keys().next().value ?? '');
    this.byOrg.set(orgId, { revision, readAt: now, endpoints });
    return endpoints;
  }
}
