import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { deliveryIdOf } from '../../../src/modules/webhooks/fan-out.js';
import { INLINE_WEBHOOK_DESTINATION, WEBHOOK_DESTINATION } from '../../../src/modules/webhooks/webhook-sender.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import type { Tx } from '../../../src/platform/db/schema.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { seedCatalog } from '../orders/orders-support.js';
import { type Receiver, startReceiver } from './receiver.js';

const DAY_MS = 86_400_000;

// The fan-out's storage and its cache of an org's endpoints: the body stored once, rows queued by earlier builds,
// retention beside pending deliveries, and endpoint changes made by another process seen by the next change.
describe.each(dialects)('webhook fan-out (%s)', (dialect) => {
  let h: Harness;
  let other: Gateway;
  let receiver: Receiver;
  let second: Receiver;
  let key: string;
  let orgId: string;
  let po = 0;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    receiver = await startReceiver();
    second = await startReceiver();
    h = await startHarness(dialect, { clock, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '30s', WEBHOOK_MAX_ATTEMPTS: '20', WEBHOOK_DISABLE_AFTER_MS: '120000' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'all')).key;
    orgId = (await h.org('acme')).id;
    // Another process on the same database: the endpoint changes it makes must reach this one's next change at once.
    other = await createGateway(h.config, { clock, migrate: false, ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}) });
  });
  afterAll(async () => {
    await other?.close();
    await h?.close();
    await receiver?.stop();
    await second?.stop();
  });
  beforeEach(async () => {
    const { endpoints } = (await h.request({ method: 'GET', url: '/v1/webhook-endpoints?limit=100', key })).json<{ endpoints: { id: string }[] }>();
    for (const e of endpoints) await h.request({ method: 'DELETE', url: `/v1/webhook-endpoints/${e.id}`, key });
    await drain(h.gateway);
    clock.set(new Date());
    for (const r of [receiver, second]) {
      r.received.length = 0;
      r.status = 200;
    }
  });

  const drain = async (gateway: Gateway) => {
    for (let i = 0; i < 50 && (await gateway.delivery.drainOnce()) > 0; i++);
  };
  const subscribe = async (url: string, types: string[] = ['*']) => {
    const res = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key, payload: { url, event_types: types } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ endpoint: { id: string }; secret: string }>();
  };
  /** An order through this process's API (with or without a currency: the settings read or not); its event id. */
  const order = async (currency?: string): Promise<string> => {
    // A new time for each (far inside the cache's backstop), so the newest order.created event is this one.
    clock.advance(10);
    const res = await h.request({ method: 'POST', url: '/v1/orders', key, payload: { po_number: `PO-FAN-${dialect}-${++po}`, ship_to: 'Dock 1', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '99.00' }], ...(currency === undefined ? {} : { currency }) } });
    expect(res.statusCode, res.body).toBe(201);
    const events = (await h.request({ method: 'GET', url: '/v1/events?type=order.created&limit=1', key })).json<{ events: { id: string }[] }>().events;
    return events[0]?.id ?? '';
  };
  // The deliveries an event was queued to, once the fan-out (after the change's commit, by the other process) has run.
  const queuedTo = async (eventId: string) => {
    await drain(other);
    return (await h.gateway.database.db.selectFrom('webhook_deliveries').select('endpoint_id').where('event_id', '=', eventId).execute()).map((d) => d.endpoint_id).sort();
  };
  const inOther = <T>(work: (tx: Tx) => Promise<T>) => other.database.db.transaction().execute(work);

  it('stores the body once: each outbox row names its event, and every endpoint and a redelivery get the event row’s bytes', async () => {
    const a = await subscribe(receiver.url);
    const b = await subscribe(second.url);
    second.status = 503;
    const events = [await order(), await order('EUR')];
    await drain(h.gateway);
    const rows = await h.gateway.database.db.selectFrom('outbox').select(['id', 'destination', 'target', 'payload']).where('id', 'in', events.flatMap((e) => [deliveryIdOf(e, a.endpoint.id), deliveryIdOf(e, b.endpoint.id)])).execute();
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.destination).toBe(WEBHOOK_DESTINATION);
      expect(events).toContain(row.payload);
    }
    await drain(h.gateway);
    second.status = 200;
    clock.advance(60_000);
    await drain(h.gateway);
    const bodies = new Map((await h.gateway.database.db.selectFrom('webhook_events').select(['id', 'body']).where('id', 'in', events).execute()).map((e) => [e.id, e.body]));
    for (const [r, { secret }, sends] of [[receiver, a, 1], [second, b, 2]] as const) {
      expect(r.received).toHaveLength(events.length * sends);
      for (const got of r.received) {
        const id = got.headers['webhook-id'] ?? '';
        expect(got.body).toBe(bodies.get(id));
        expect((new Webhook(secret).verify(got.body, got.headers) as { id: string }).id).toBe(id);
      }
    }
  });

  it('keeps a test event for its delivery only: sent with its body, never listed or found by the events API', async () => {
    const { endpoint, secret } = await subscribe(receiver.url);
    const test = await h.request({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/test`, key });
    expect(test.statusCode, test.body).toBe(202);
    const eventId = test.json<{ delivery: { event_id: string } }>().delivery.event_id;
    await drain(h.gateway);
    expect(receiver.received).toHaveLength(1);
    expect(new Webhook(secret).verify(receiver.received[0]?.body ?? '', receiver.received[0]?.headers ?? {})).toMatchObject({ id: eventId, type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    expect((await h.request({ method: 'GET', url: `/v1/events/${eventId}`, key })).statusCode).toBe(404);
    const listed = (await h.request({ method: 'GET', url: '/v1/events?limit=100', key })).json<{ events: { id: string }[] }>().events;
    expect(listed.map((e) => e.id)).not.toContain(eventId);
    expect((await h.request({ method: 'GET', url: '/v1/events?type=webhook.test', key })).statusCode).toBe(400);
  });

  it('sends a row queued by an earlier build (the body inline, destination webhook) with that body and its webhook-id', async () => {
    const { endpoint, secret } = await subscribe(receiver.url);
    const at = clock.now().toISOString();
    const eventId = `evt_legacy_${dialect}`;
    const body = JSON.stringify({ id: eventId, type: 'inventory.updated', created_at: at, data: { rows: [{ sku: 'TIRE-225', qty: 3 }], unknown_skus: [] } });
    const id = deliveryIdOf(eventId, endpoint.id);
    const { db } = h.gateway.database;
    await db.insertInto('webhook_deliveries').values({ id, org_id: orgId, endpoint_id: endpoint.id, event_id: eventId, type: 'inventory.updated', created_at: at }).execute();
    await db
      .insertInto('outbox')
      .values({ id, org_id: orgId, destination: INLINE_WEBHOOK_DESTINATION, target: endpoint.id, type: 'inventory.updated', content_type: 'application/json', payload: body, status: 'queued', attempts: 0, next_attempt_at: at, lease_owner: null, lease_until: null, last_error: null, created_at: at, delivered_at: null })
      .execute();
    await drain(h.gateway);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.body).toBe(body);
    expect(receiver.received[0]?.headers['webhook-id']).toBe(eventId);
    new Webhook(secret).verify(receiver.received[0]?.body ?? '', receiver.received[0]?.headers ?? {});
    const [delivery] = (await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key })).json<{ deliveries: { id: string; status: string }[] }>().deliveries;
    expect(delivery).toMatchObject({ id, status: 'delivered' });
  });

  it('retention keeps an event and its delivery while the delivery is pending, and removes both once it is delivered', async () => {
    const { endpoint } = await subscribe(receiver.url, ['order.created']);
    receiver.status = 503;
    const eventId = await order();
    await drain(h.gateway);
    clock.advance(31 * DAY_MS);
    await h.gateway.retention.runOnce();
    const { db } = h.gateway.database;
    const id = deliveryIdOf(eventId, endpoint.id);
    expect(await db.selectFrom('webhook_events').select('id').where('id', '=', eventId).execute()).toHaveLength(1);
    expect(await db.selectFrom('webhook_deliveries').select('id').where('id', '=', id).execute()).toHaveLength(1);
    // Hidden from the events API all the same: it is past the 30 days.
    expect((await h.request({ method: 'GET', url: `/v1/events/${eventId}`, key })).statusCode).toBe(404);
    receiver.status = 200;
    await drain(h.gateway);
    expect(receiver.received.at(-1)?.headers['webhook-id']).toBe(eventId);
    await h.gateway.retention.runOnce();
    expect(await db.selectFrom('webhook_events').select('id').where('id', '=', eventId).execute()).toEqual([]);
    expect(await db.selectFrom('webhook_deliveries').select('id').where('id', '=', id).execute()).toEqual([]);
  });

  it("sees another process's endpoint changes at the next change: created, disabled, deleted, enabled, and disabled by its sender", async () => {
    const first = await subscribe(receiver.url);
    // This process caches the org's endpoints with this order...
    expect(await queuedTo(await order())).toEqual([first.endpoint.id]);
    // ...and the other process changes them: each is seen by the very next order here.
    const added = await inOther((tx) => other.services.webhooks.create(tx, orgId, { url: second.url, event_types: ['order.created'] }));
    expect(await queuedTo(await order())).toEqual([first.endpoint.id, added.endpoint.id].sort());
    await inOther((tx) => other.services.webhooks.update(tx, orgId, first.endpoint.id, { enabled: false }));
    expect(await queuedTo(await order('USD'))).toEqual([added.endpoint.id]);
    await inOther((tx) => other.services.webhooks.update(tx, orgId, added.endpoint.id, { event_types: ['inventory.updated'] }));
    expect(await queuedTo(await order())).toEqual([]);
    await inOther((tx) => other.services.webhooks.delete(tx, orgId, added.endpoint.id));
    await inOther((tx) => other.services.webhooks.update(tx, orgId, first.endpoint.id, { enabled: true }));
    expect(await queuedTo(await order())).toEqual([first.endpoint.id]);
    // The other process's sender disables the endpoint after failing every attempt for too long.
    receiver.status = 503;
    expect(await queuedTo(await order())).toEqual([first.endpoint.id]);
    clock.advance(130_000);
    const cached = await order();
    expect(await queuedTo(cached)).toEqual([first.endpoint.id]);
    const disabled = (await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${first.endpoint.id}`, key })).json<{ endpoint: { enabled: boolean } }>().endpoint;
    expect(disabled.enabled).toBe(false);
    expect(await queuedTo(await order())).toEqual([]);
  });

  it('keeps the revision out of the org settings an operator sees or sets', async () => {
    await subscribe(receiver.url);
    const settings = await h.gateway.services.orgs.settings(orgId);
    expect(Object.keys(settings).some((name) => name.includes('revision'))).toBe(false);
    await expect(h.gateway.services.orgs.setSettings('acme', ['revision:webhooks.endpoints=x'])).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
