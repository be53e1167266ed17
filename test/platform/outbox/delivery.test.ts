import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueHubEvent } from '../../../src/platform/outbox/outbox.js';
import { claimDue, markDelivered, reschedule } from '../../../src/platform/outbox/outbox.repository.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { type OrderBody, orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

const MINUTE = 60_000;

/** Runs the worker by hand until nothing is due (on the harness's clock). */
async function drain(h: Harness): Promise<number> {
  let total = 0;
  for (let n = await h.gateway.delivery.drainOnce(); n > 0; n = await h.gateway.delivery.drainOnce()) total += n;
  return total;
}

async function outboxRow(h: Harness, id: string) {
  return h.gateway.database.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function enqueueMany(h: Harness, orgId: string, n: number, prefix: string): Promise<string[]> {
  return h.gateway.database.db.transaction().execute(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await enqueueHubEvent(tx, { type: 'telematics.event', orgId, at: h.gateway.clock.now(), id: `${prefix}-${i}`, data: { i } }));
    return ids;
  });
}

describe.each(dialects)('hub delivery (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;
  let key: string;
  let orgId: string;
  let poSeq = 0;

  beforeAll(async () => {
    sim = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: sim.url, HUB_TIMEOUT_MS: '500', OUTBOX_POLL_MS: '20' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write,inventory:write')).key;
    orgId = (await h.org('acme')).id;
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });
  beforeEach(async () => {
    await sim.reset();
    // Whatever an earlier test left waiting is delivered, so each test sees only its own traffic.
    h.clock.advance(60 * MINUTE);
    await drain(h);
    await sim.reset();
  });

  const createOrder = async (): Promise<OrderBody> => {
    const res = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload(`PO-D-${++poSeq}`), key });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ order: OrderBody }>().order;
  };
  const getOrder = async (id: string): Promise<OrderBody> =>
    (await h.request({ method: 'GET', url: `/v1/orders/${id}`, key })).json<{ order: OrderBody }>().order;
  const createdEventsFor = (orderId: string) =>
    sim.events().filter((e) => e.type === 'order.created' && (e.data as { id: string }).id === orderId);

  it('hub down during create: 201 with the delivery queued, then delivered exactly once after the hub comes back', async () => {
    await sim.setMode({ kind: 'down' });
    const order = await createOrder();
    expect(order.delivery.status).toBe('queued');
    expect(order.delivery.attempts).toBe(1);
    expect(order.delivery.last_error).toMatch(/hub unreachable/);
    await sim.setMode({ kind: 'up' });
    h.clock.advance(10 * MINUTE);
    await drain(h);
    expect(createdEventsFor(order.id)).toHaveLength(1);
    expect((await getOrder(order.id)).delivery).toEqual({ status: 'delivered', attempts: 2, last_error: null });
    h.clock.advance(10 * MINUTE);
    expect(await drain(h)).toBe(0);
    expect(createdEventsFor(order.id)).toHaveLength(1);
  });

  it('hub slower than HUB_TIMEOUT_MS: the call succeeds queued; the redelivery is a duplicate to the hub, which keeps one copy', async () => {
    await sim.setMode({ kind: 'slow', delayMs: 1500 });
    const order = await createOrder();
    expect(order.delivery.status).toBe('queued');
    expect(order.delivery.last_error).toMatch(/did not answer within 500 ms/);
    // The slow hub still stores what it was sent.
    await waitFor(() => createdEventsFor(order.id).length === 1, { what: 'the slow hub to store the event' });
    await sim.setMode({ kind: 'up' });
    h.clock.advance(10 * MINUTE);
    await drain(h);
    expect(createdEventsFor(order.id)).toHaveLength(1);
    expect((await getOrder(order.id)).delivery.status).toBe('delivered');
    const metrics = (await h.request({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/gateway_outbox_deliveries_total\{destination="hub",outcome="duplicate"\} [1-9]/);
  });

  it('hub 5xx: retried with backoff until it answers', async () => {
    await sim.setMode({ kind: 'error', status: 503, count: 2 });
    const order = await createOrder();
    expect(order.delivery).toMatchObject({ status: 'queued', attempts: 1 });
    expect(order.delivery.last_error).toMatch(/hub answered 503/);
    h.clock.advance(10 * MINUTE);
    await drain(h);
    expect((await getOrder(order.id)).delivery).toMatchObject({ status: 'queued', attempts: 2 });
    h.clock.advance(10 * MINUTE);
    await drain(h);
    expect((await getOrder(order.id)).delivery).toEqual({ status: 'delivered', attempts: 3, last_error: null });
    expect(createdEventsFor(order.id)).toHaveLength(1);
  });

  it('hub back after an outage: its first delivery releases the whole backlog at once, not each row after its own backoff', async () => {
    await sim.setMode({ kind: 'down' });
    // Four groups of events queued during the outage, each failing from its round on: every group backs off by its own
    // jittered delay, up to two minutes at the eighth attempt.
    const ids: string[] = [];
    for (let round = 0; round < 8; round++) {
      if (round < 4) ids.push(...(await enqueueMany(h, orgId, 10, `outage-${dialect}-${round}`)));
      h.clock.advance(10 * MINUTE);
      await drain(h);
    }
    const rows = () => h.gateway.database.db.selectFrom('outbox').select(['id', 'status', 'next_attempt_at']).where('id', 'in', ids).execute();
    const backedOff = await rows();
    expect(backedOff.every((r) => r.status === 'queued' && r.next_attempt_at > h.clock.now().toISOString())).toBe(true);
    const dueTimes = backedOff.map((r) => r.next_attempt_at).sort();
    expect(dueTimes[0], 'rows wait different times').not.toBe(dueTimes[dueTimes.length - 1]);

    // The hub answers again. The clock moves to the first row's time only, never to the last one's.
    await sim.setMode({ kind: 'up' });
    h.clock.set(dueTimes[0] ?? '');
    await drain(h);
    expect((await rows()).filter((r) => r.status !== 'delivered')).toEqual([]);
    expect(new Set(sim.events().map((e) => e.id))).toEqual(new Set(ids));
  });

  it('hub 429 with Retry-After: not retried before the hub said so', async () => {
    await sim.setMode({ kind: 'rate_limited', retryAfterSeconds: 120, count: 1 });
    const order = await createOrder();
    expect(order.delivery.status).toBe('queued');
    expect(order.delivery.last_error).toMatch(/hub answered 429/);
    const row = await outboxRow(h, (await h.gateway.database.db.selectFrom('orders').select('last_event_id').where('id', '=', order.id).executeTakeFirstOrThrow()).last_event_id);
    expect(row.next_attempt_at >= new Date(h.clock.now().getTime() + 120_000).toISOString()).toBe(true);
    h.clock.advance(60_000);
    expect(await drain(h)).toBe(0);
    h.clock.advance(61_000);
    await drain(h);
    expect((await getOrder(order.id)).delivery.status).toBe('delivered');
  });

  it('while the hub has asked to wait, a new event is written queued, not leased, and nothing is sent before its time', async () => {
    await sim.setMode({ kind: 'rate_limited', retryAfterSeconds: 120, count: 1 });
    await createOrder();
    const asked = sim.received();
    const order = await createOrder();
    expect(order.delivery).toEqual({ status: 'queued', attempts: 0, last_error: null });
    expect(sim.received()).toBe(asked);
    const eventId = (await h.gateway.database.db.selectFrom('orders').select('last_event_id').where('id', '=', order.id).executeTakeFirstOrThrow()).last_event_id;
    expect(await outboxRow(h, eventId)).toMatchObject({ status: 'queued', lease_owner: null, lease_until: null });
    h.clock.advance(121_000);
    await drain(h);
    expect((await getOrder(order.id)).delivery.status).toBe('delivered');
  });

  it('a leased event whose destination asks to wait before it is sent goes back to the queue until then, unsent', async () => {
    // The first create's send is answered 429 after 200 ms; the second is written (leased) meanwhile and waits behind it.
    await sim.setMode({ kind: 'rate_limited', retryAfterSeconds: 120, count: 1, delayMs: 200 });
    const first = createOrder();
    await waitFor(() => sim.received() >= 1, { what: 'the first send to reach the hub' });
    const second = await createOrder();
    await first;
    expect(sim.received()).toBe(1);
    expect(second.delivery).toMatchObject({ status: 'queued', attempts: 1 });
    expect(second.delivery.last_error).toMatch(/Retry-After/);
    const eventId = (await h.gateway.database.db.selectFrom('orders').select('last_event_id').where('id', '=', second.id).executeTakeFirstOrThrow()).last_event_id;
    const row = await outboxRow(h, eventId);
    expect(row).toMatchObject({ status: 'queued', lease_owner: null });
    expect(row.next_attempt_at >= new Date(h.clock.now().getTime() + 119_000).toISOString()).toBe(true);
    h.clock.advance(121_000);
    await drain(h);
    expect((await getOrder(second.id)).delivery.status).toBe('delivered');
    expect(createdEventsFor(second.id)).toHaveLength(1);
  });

  it('an event is written leased to the process that sends it after commit: the polling drain cannot take it from under the request', async () => {
    // Each send takes 250 ms, so creates made meanwhile wait behind the first one's send, in reach of a drain polling every 20 ms.
    await sim.setMode({ kind: 'slow', delayMs: 250 });
    h.gateway.delivery.start();
    let orders: OrderBody[];
    try {
      const first = createOrder();
      await waitFor(() => sim.received() >= 1, { what: 'the first send to reach the hub' });
      orders = [await first, ...(await Promise.all(Array.from({ length: 10 }, () => createOrder())))];
    } finally {
      await h.gateway.delivery.stop();
    }
    for (const o of orders) expect(o.delivery).toEqual({ status: 'delivered', attempts: 1, last_error: null });
    for (const o of orders) expect(createdEventsFor(o.id)).toHaveLength(1);
  });

  it('per-event rejection: recorded with the hub\'s reason, not retried, until an operator retries it', async () => {
    sim.rejectType('order.created', 'unknown dealer account');
    const order = await createOrder();
    expect(order.delivery).toEqual({ status: 'rejected', attempts: 1, last_error: 'unknown dealer account' });
    const received = sim.received();
    h.clock.advance(60 * MINUTE);
    expect(await drain(h)).toBe(0);
    expect(sim.received()).toBe(received);

    const { deliveries } = h.gateway.services;
    const rejected = await deliveries.list({ status: 'rejected', orgSlug: 'acme', limit: 50 });
    const mine = rejected.find((d) => d.last_error === 'unknown dealer account');
    expect(mine).toMatchObject({ type: 'order.created', status: 'rejected', attempts: 1, next_attempt_at: null });
    sim.rejectType(null);
    expect(await deliveries.retry(mine?.id ?? '')).toEqual({ retried: 1 });
    await drain(h);
    expect((await getOrder(order.id)).delivery.status).toBe('delivered');
    await expect(deliveries.retry(mine?.id ?? '')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(deliveries.retry('evt_missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('retries every rejected delivery of an org at once', async () => {
    sim.rejectType('inventory.updated', 'warehouse closed');
    for (let i = 0; i < 3; i++) {
      const res = await h.request({ method: 'POST', url: '/v1/inventory', payload: { rows: [{ sku: 'X', qty: i }] }, key });
      expect(res.statusCode).toBe(200);
      expect(res.json<{ delivery_status: string; queued: boolean }>()).toMatchObject({ delivery_status: 'rejected', queued: false });
    }
    sim.rejectType(null);
    expect((await h.gateway.services.deliveries.retryAllRejected('acme')).retried).toBe(3);
    await drain(h);
    expect(sim.events().filter((e) => e.type === 'inventory.updated')).toHaveLength(3);
    expect(await h.gateway.services.deliveries.list({ status: 'rejected', orgSlug: 'acme', limit: 50 })).toEqual([]);
  });

  it.runIf(dialect === 'sqlite')('an idle poll reads on the read connection and takes no write lock; a row queued since is claimed by the next poll', async () => {
    const stats = h.gateway.database.groupCommit;
    if (stats === undefined) throw new Error('SQLite keeps group commit stats');
    const before = stats.commits;
    expect(await h.gateway.delivery.drainOnce()).toBe(0);
    expect(await h.gateway.delivery.drainOnce()).toBe(0);
    expect(stats.commits).toBe(before);
    const [id] = await enqueueMany(h, orgId, 1, 'idle-then-due');
    expect(await h.gateway.delivery.drainOnce()).toBe(1);
    expect((await outboxRow(h, id ?? '')).status).toBe('delivered');
  });

  it('sends at most 500 events a batch', async () => {
    await enqueueMany(h, orgId, 1200, `batch-${dialect}`);
    expect(await h.gateway.delivery.drainOnce()).toBe(500);
    expect(await h.gateway.delivery.drainOnce()).toBe(500);
    expect(await h.gateway.delivery.drainOnce()).toBe(200);
    expect(await h.gateway.delivery.drainOnce()).toBe(0);
    expect(sim.received()).toBe(3);
    expect(new Set(sim.events().map((e) => e.id)).size).toBe(1200);
  });

  it('keeps a deterministic event id once: enqueueing it again is a no-op', async () => {
    const first = await enqueueMany(h, orgId, 1, `det-${dialect}`);
    const again = await enqueueMany(h, orgId, 1, `det-${dialect}`);
    expect(first).toEqual([`det-${dialect}-0`]);
    expect(again).toEqual(first);
    const rows = await h.gateway.database.db.selectFrom('outbox').select('id').where('id', '=', `det-${dialect}-0`).execute();
    expect(rows).toHaveLength(1);
    await drain(h);
    expect(sim.events().filter((e) => e.id === first[0])).toHaveLength(1);
  });

  it('a crashed worker\'s lease runs out and its deliveries go out again; its late writes change nothing', async () => {
    const ids = await enqueueMany(h, orgId, 5, `crash-${dialect}`);
    const now = h.clock.now();
    const leaseUntil = new Date(now.getTime() + MINUTE).toISOString();
    const claimed = await claimDue(h.gateway.database.db, h.gateway.database.dialect, {
      destination: 'hub', owner: 'dead-worker', now: now.toISOString(), leaseUntil, limit: 500,
    });
    expect(claimed.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(await h.gateway.delivery.drainOnce()).toBe(0);
    h.clock.advance(MINUTE + 1);
    expect(await drain(h)).toBe(5);
    for (const id of ids) expect(await outboxRow(h, id)).toMatchObject({ status: 'delivered', attempts: 2 });
    await reschedule(h.gateway.database.db, ids, 'dead-worker', h.clock.now().toISOString(), 'late failure');
    await markDelivered(h.gateway.database.db, ids, 'dead-worker', '1999-01-01T00:00:00.000Z');
    for (const id of ids) expect(await outboxRow(h, id)).toMatchObject({ status: 'delivered', last_error: null });
    expect(sim.events().filter((e) => ids.includes(e.id))).toHaveLength(5);
  });

  it('the running worker drains in the background and stops cleanly', async () => {
    await sim.setMode({ kind: 'down' });
    const orders = [await createOrder(), await createOrder()];
    await sim.setMode({ kind: 'up' });
    h.clock.advance(10 * MINUTE);
    h.gateway.delivery.start();
    try {
      await waitFor(async () => (await Promise.all(orders.map((o) => getOrder(o.id)))).every((o) => o.delivery.status === 'delivered'), {
        what: 'the worker to deliver both orders',
      });
    } finally {
      await h.gateway.delivery.stop();
    }
    for (const o of orders) expect(createdEventsFor(o.id)).toHaveLength(1);
  });

  it('exports queue depth, oldest queued age and outcomes on /metrics', async () => {
    await sim.setMode({ kind: 'down' });
    await createOrder();
    await createOrder();
    const text = (await h.request({ method: 'GET', url: '/metrics' })).body;
    expect(text).toMatch(/gateway_outbox_queue_depth\{destination="hub"\} 2\b/);
    expect(text).toMatch(/gateway_outbox_oldest_queued_age_seconds\{destination="hub"\} \d/);
    expect(text).toMatch(/gateway_outbox_deliveries_total\{destination="hub",outcome="delivered"\} [1-9]/);
    expect(text).toMatch(/gateway_outbox_deliveries_total\{destination="hub",outcome="retry"\} [1-9]/);
    await sim.setMode({ kind: 'up' });
  });
});

describe.each(dialects)('hub delivery edge cases (%s)', (dialect) => {
  it('without HUB_URL deliveries wait in the outbox and the call still succeeds', async () => {
    const h = await startHarness(dialect);
    try {
      await seedCatalog(h, 'acme');
      const { key } = await h.key('acme', 'orders:write');
      const res = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-NOHUB'), key });
      expect(res.statusCode).toBe(201);
      expect(res.json<{ order: OrderBody }>().order.delivery).toEqual({ status: 'queued', attempts: 0, last_error: null });
      expect(await h.gateway.delivery.drainOnce()).toBe(0);
      expect(await h.gateway.services.deliveries.list({ status: 'queued', limit: 10 })).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('a hub answer other than 408/429/5xx (401 for a wrong token) is recorded as rejected, not retried', async () => {
    const sim = await startHubSim({ token: 'the-right-token' });
    const h = await startHarness(dialect, { env: { HUB_URL: sim.url, HUB_TOKEN: 'a-wrong-token' } });
    try {
      await seedCatalog(h, 'acme');
      const { key } = await h.key('acme', 'orders:write');
      const res = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload('PO-401'), key });
      expect(res.statusCode).toBe(201);
      const delivery = res.json<{ order: OrderBody }>().order.delivery;
      expect(delivery.status).toBe('rejected');
      expect(delivery.last_error).toMatch(/hub answered 401/);
      h.clock.advance(60 * MINUTE);
      expect(await h.gateway.delivery.drainOnce()).toBe(0);
    } finally {
      await h.close();
      await sim.close();
    }
  });
});
