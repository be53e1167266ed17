import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EventFanOut } from '../../../src/modules/webhooks/event-fan-out.js';
import { deliveryIdOf, fanOutEvents } from '../../../src/modules/webhooks/fan-out.js';
import { FANOUT_DESTINATION, WEBHOOK_DESTINATION } from '../../../src/modules/webhooks/webhook-sender.js';
import { takePendingFanOuts } from '../../../src/modules/webhooks/webhooks.repository.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { RequestsInFlight } from '../../../src/platform/core/requests-in-flight.js';
import { YieldToRequests } from '../../../src/platform/core/yield-to-requests.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { seedCatalog } from '../orders/orders-support.js';
import { type Receiver, startReceiver } from './receiver.js';

// The fan-out after commit, carried by the event row (`fanout`): who gets an event (the endpoints subscribed when it
// happened, still enabled when it is fanned out, of its own org), a fan-out killed midway or done twice, processes
// sharing it, a previous build's fan-out row, and webhook work yielding to the requests in flight.
describe.each(dialects)('deferred webhook fan-out (%s)', (dialect) => {
  let h: Harness;
  let receiver: Receiver;
  let second: Receiver;
  let key: string;
  let otherKey: string;
  let orgId: string;
  let po = 0;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    receiver = await startReceiver();
    second = await startReceiver();
    h = await startHarness(dialect, { clock, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_SHARE_WHEN_BUSY: '0.5' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'all')).key;
    otherKey = (await h.key('beta', 'all')).key;
    orgId = (await h.org('acme')).id;
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
    await second?.stop();
  });
  beforeEach(async () => {
    for (const k of [key, otherKey]) {
      const { endpoints } = (await h.request({ method: 'GET', url: '/v1/webhook-endpoints?limit=100', key: k })).json<{ endpoints: { id: string }[] }>();
      for (const e of endpoints) await h.request({ method: 'DELETE', url: `/v1/webhook-endpoints/${e.id}`, key: k });
    }
    await drain();
    clock.advance(1000);
    for (const r of [receiver, second]) {
      r.received.length = 0;
      r.status = 200;
      delete r.onRequest;
    }
  });

  const drain = async () => {
    for (let i = 0; i < 100 && (await h.gateway.delivery.drainOnce()) > 0; i++);
  };
  const subscribe = async (url: string, types: string[] = ['*'], k = key) => {
    const res = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key: k, payload: { url, event_types: types } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ endpoint: { id: string } }>().endpoint.id;
  };
  /** An order through the API; its order.created event id. */
  const order = async (): Promise<string> => {
    clock.advance(10);
    const res = await h.request({ method: 'POST', url: '/v1/orders', key, payload: { po_number: `PO-DEF-${dialect}-${++po}`, ship_to: 'Dock 1', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '99.00' }] } });
    expect(res.statusCode, res.body).toBe(201);
    return (await h.request({ method: 'GET', url: '/v1/events?type=order.created&limit=1', key })).json<{ events: { id: string }[] }>().events[0]?.id ?? '';
  };
  const deliveriesOf = async (eventId: string) => (await h.gateway.database.db.selectFrom('webhook_deliveries').select(['id', 'endpoint_id']).where('event_id', '=', eventId).execute()).map((d) => d.endpoint_id).sort();
  const webhookIds = (r: Receiver) => r.received.map((got) => got.headers['webhook-id']);

  const fanOutOf = async (eventId: string) => (await h.gateway.database.db.selectFrom('webhook_events').select('fanout').where('id', '=', eventId).executeTakeFirstOrThrow()).fanout;
  const webhookOutbox = async (eventId: string) =>
    (await h.gateway.database.db.selectFrom('outbox').select(['id', 'status']).where('destination', '=', WEBHOOK_DESTINATION).where('payload', '=', eventId).execute()).sort((x, y) => (x.id < y.id ? -1 : 1));

  it('names the subscribed endpoints in the event row and writes nothing to the outbox for them; the worker queues and sends them after commit', async () => {
    const a = await subscribe(receiver.url);
    const b = await subscribe(second.url, ['order.created']);
    const eventId = await order();
    const { db } = h.gateway.database;
    const rows = await db.selectFrom('outbox').select('id').where('destination', 'in', [FANOUT_DESTINATION, WEBHOOK_DESTINATION]).where('status', '=', 'queued').execute();
    expect(rows).toEqual([]);
    expect((JSON.parse((await fanOutOf(eventId)) ?? '[]') as string[]).sort()).toEqual([a, b].sort());
    expect(await deliveriesOf(eventId)).toEqual([]);
    // Shown where the fan-out's outbox rows were: one event waiting.
    const metrics = (await h.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/gateway_outbox_queue_depth\{destination="webhook_fanout"\} 1\b/);
    await drain();
    expect(await deliveriesOf(eventId)).toEqual([a, b].sort());
    expect(await fanOutOf(eventId)).toBeNull();
    expect(webhookIds(receiver)).toEqual([eventId]);
    expect(webhookIds(second)).toEqual([eventId]);
    expect((await h.request({ method: 'GET', url: '/metrics' })).body).toMatch(/gateway_outbox_deliveries_total\{destination="webhook_fanout",outcome="delivered"\} [1-9]/);
  });

  it('leaves an event with no subscribed endpoint with nothing to fan out', async () => {
    await subscribe(receiver.url, ['inventory.updated']);
    const eventId = await order();
    expect(await fanOutOf(eventId)).toBeNull();
  });

  it('a fan-out that dies midway leaves its events pending and queued nothing; the next queues each delivery once', async () => {
    const a = await subscribe(receiver.url);
    const eventId = await order();
    const { db, dialect: d } = h.gateway.database;
    // A taker writes the deliveries, then dies before its commit (a SIGKILL rolls back the same way).
    await expect(
      db.transaction().execute(async (tx) => {
        const pending = await takePendingFanOuts(tx, d, 100);
        expect(pending.map((p) => p.id)).toEqual([eventId]);
        await fanOutEvents(tx, [{ orgId, event: { id: eventId, type: 'order.created', created_at: pending[0]?.created_at ?? '' }, endpointIds: [a] }]);
        throw new Error('killed');
      }),
    ).rejects.toThrow('killed');
    expect(await deliveriesOf(eventId)).toEqual([]);
    expect(await fanOutOf(eventId)).not.toBeNull();
    await drain();
    expect(await deliveriesOf(eventId)).toEqual([a]);
    expect(webhookIds(receiver)).toEqual([eventId]);
  });

  it('queues each delivery once when an event is fanned out twice', async () => {
    const a = await subscribe(receiver.url);
    const b = await subscribe(second.url);
    const eventId = await order();
    const named = await fanOutOf(eventId);
    await drain();
    expect(webhookIds(receiver)).toEqual([eventId]);
    // Pending again after its deliveries went (a second taker that read it before the first cleared it, a restored row).
    await h.gateway.database.db.updateTable('webhook_events').set({ fanout: named }).where('id', '=', eventId).execute();
    await drain();
    expect(await fanOutOf(eventId)).toBeNull();
    expect(await deliveriesOf(eventId)).toEqual([a, b].sort());
    const outbox = await webhookOutbox(eventId);
    expect(outbox.map((r) => r.id)).toEqual([deliveryIdOf(eventId, a), deliveryIdOf(eventId, b)].sort());
    expect(outbox.every((r) => r.status === 'delivered')).toBe(true);
    expect(webhookIds(receiver)).toEqual([eventId]);
    expect(webhookIds(second)).toEqual([eventId]);
  });

  it.runIf(dialect === 'postgres')('processes share the work: one skips the events another holds', async () => {
    const a = await subscribe(receiver.url);
    const first = await order();
    const next = await order();
    const { db } = h.gateway.database;
    const other = new EventFanOut(db, 'postgres', new YieldToRequests(new RequestsInFlight(), clock, 1));
    await db.transaction().execute(async (tx) => {
      const mine = await takePendingFanOuts(tx, 'postgres', 1);
      expect(mine.map((p) => p.id)).toEqual([first]);
      // Another process's fan-out, while this one holds the oldest: it takes the next and does not wait.
      expect(await other.run()).toBe(1);
      expect(await deliveriesOf(next)).toEqual([a]);
      await fanOutEvents(tx, [{ orgId, event: { id: first, type: 'order.created', created_at: mine[0]?.created_at ?? '' }, endpointIds: [a] }]);
      await tx.updateTable('webhook_events').set({ fanout: null }).where('id', '=', first).execute();
    });
    expect(await other.run()).toBe(0);
    expect(await deliveriesOf(first)).toEqual([a]);
    await drain();
    expect(webhookIds(receiver).sort()).toEqual([first, next].sort());
  });

  it('still fans out a `webhook_fanout` outbox row a build before 0047 queued beside this one', async () => {
    const a = await subscribe(receiver.url);
    const eventId = await order();
    const { db } = h.gateway.database;
    // As a previous build writes it: the event without `fanout`, its fan-out an outbox row.
    await db.updateTable('webhook_events').set({ fanout: null }).where('id', '=', eventId).execute();
    const at = clock.now().toISOString();
    await db
      .insertInto('outbox')
      .values({ id: `whf_legacy_${dialect}`, org_id: orgId, destination: FANOUT_DESTINATION, target: null, type: 'order.created', content_type: 'application/json', payload: JSON.stringify({ event_id: eventId, created_at: at, endpoint_ids: [a] }), status: 'queued', attempts: 0, next_attempt_at: at, lease_owner: null, lease_until: null, last_error: null, created_at: at, delivered_at: null })
      .execute();
    await drain();
    expect(await deliveriesOf(eventId)).toEqual([a]);
    expect(webhookIds(receiver)).toEqual([eventId]);
    expect((await db.selectFrom('outbox').select('status').where('id', '=', `whf_legacy_${dialect}`).executeTakeFirstOrThrow()).status).toBe('delivered');
  });

  it('sends an event to the endpoints subscribed when it happened and enabled when it is fanned out: not to one created after, disabled or deleted since', async () => {
    const kept = await subscribe(receiver.url);
    const disabled = await subscribe(second.url, ['order.created']);
    const deleted = await subscribe(second.url, ['*']);
    const eventId = await order();
    clock.advance(10);
    const created = await subscribe(second.url, ['*']);
    expect((await h.request({ method: 'PATCH', url: `/v1/webhook-endpoints/${disabled}`, key, payload: { enabled: false } })).statusCode).toBe(200);
    expect((await h.request({ method: 'DELETE', url: `/v1/webhook-endpoints/${deleted}`, key })).statusCode).toBe(200);
    await drain();
    expect(await deliveriesOf(eventId)).toEqual([kept]);
    expect(webhookIds(receiver)).toEqual([eventId]);
    expect(second.received).toEqual([]);
    // The endpoint created after it gets the events that happen from then on.
    const next = await order();
    await drain();
    expect(await deliveriesOf(next)).toEqual([created, kept].sort());
  });

  it('retention keeps an event while its fan-out is pending, and the fan-out then delivers it', async () => {
    const a = await subscribe(receiver.url);
    const eventId = await order();
    // No process fanned it out for longer than events are kept (every process stopped, say).
    clock.advance(31 * 24 * 3600 * 1000);
    await h.gateway.retention.runOnce();
    expect(await fanOutOf(eventId)).not.toBeNull();
    await drain();
    expect(await deliveriesOf(eventId)).toEqual([a]);
    expect(webhookIds(receiver)).toEqual([eventId]);
  });

  it("never delivers an org's event to another org's endpoint, even when its row names it", async () => {
    await subscribe(receiver.url);
    const theirs = await subscribe(second.url, ['*'], otherKey);
    const eventId = await order();
    // The event names the other org's endpoint too (as a hand edit or a bug would).
    const { db } = h.gateway.database;
    const named = JSON.parse((await fanOutOf(eventId)) ?? '[]') as string[];
    await db
      .updateTable('webhook_events')
      .set({ fanout: JSON.stringify([...named, theirs]) })
      .where('id', '=', eventId)
      .execute();
    await drain();
    expect(webhookIds(receiver)).toEqual([eventId]);
    expect(second.received).toEqual([]);
    expect(await db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', theirs).execute()).toEqual([]);
    const deliveries = (await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${theirs}/deliveries`, key: otherKey })).json<{ deliveries: unknown[] }>().deliveries;
    expect(deliveries).toEqual([]);
  });

  it('takes at most its share of the time while a request is in flight, at least a round a second, and drains flat out when none is', async () => {
    await subscribe(receiver.url, ['order.created']);
    for (let i = 0; i < 25; i++) await order();
    // Each POST the receiver gets moves the clock 10 ms: a round that sends 20 takes 200 ms on the gateway's clock.
    receiver.onRequest = () => clock.advance(10);
    h.gateway.requests.enter();
    try {
      expect(await h.gateway.delivery.drainOnce()).toBe(25 + 20);
      expect(receiver.received).toHaveLength(20);
      // Share 0.5: the next round waits as long as this one took (200 ms), whatever else asks.
      expect(await h.gateway.delivery.drainOnce()).toBe(0);
      clock.advance(199);
      expect(await h.gateway.delivery.drainOnce()).toBe(0);
      clock.advance(1);
      expect(await h.gateway.delivery.drainOnce()).toBe(5);
      expect(receiver.received).toHaveLength(25);
      // A round that took 20 s waits 1 s at most, not 20: it never starves.
      for (let i = 0; i < 21; i++) await order();
      receiver.onRequest = () => clock.advance(1000);
      await h.gateway.delivery.drainOnce();
      expect(receiver.received).toHaveLength(45);
      expect(await h.gateway.delivery.drainOnce()).toBe(0);
      clock.advance(999);
      expect(await h.gateway.delivery.drainOnce()).toBe(0);
      clock.advance(1);
      expect(await h.gateway.delivery.drainOnce()).toBe(1);
      expect(receiver.received).toHaveLength(46);
    } finally {
      h.gateway.requests.leave();
    }
    // No request in flight: rounds follow each other at once, the clock standing still.
    for (let i = 0; i < 25; i++) await order();
    receiver.onRequest = () => clock.advance(10);
    expect(await h.gateway.delivery.drainOnce()).toBe(25 + 20);
    expect(await h.gateway.delivery.drainOnce()).toBe(5);
    expect(receiver.received).toHaveLength(71);
  });
});
