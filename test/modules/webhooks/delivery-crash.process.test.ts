import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_DESTINATION } from '../../../src/modules/webhooks/webhook-sender.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { childEnv, postJson, requireBuild, type ServeProcess, startServe } from '../../platform/outbox/process-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { orderPayload, seedCatalog } from '../orders/orders-support.js';
import { type Receiver, startReceiver } from './receiver.js';

interface Subscription {
  id: string;
  secret: string;
  receiver: Receiver;
  types: string[];
}

// A receiver that holds its answers (WEBHOOK_TIMEOUT_MS) must be cut by the kill before the timeout, and the lease must run out soon after the restart.
const SERVE_ENV = {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_RETRY_SCHEDULE: '100ms',
  WEBHOOK_MAX_ATTEMPTS: '50',
  OUTBOX_LEASE_MS: '2500',
  HUB_BATCH_TIMEOUT_MS: '1000',
  HUB_TIMEOUT_MS: '1000',
  OUTBOX_POLL_MS: '50',
};

describe.each(dialects)('webhook delivery across a SIGKILL of serve (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let receivers: Receiver[] = [];
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    // Real time: the serve processes sign with the system clock, which the reference library checks.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()), env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'all')).key;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill('SIGTERM')));
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all(receivers.map((r) => r.stop()));
  });

  const subscribe = async (receiver: Receiver, types: string[]): Promise<Subscription> => {
    const res = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key, payload: { url: receiver.url, event_types: types } });
    expect(res.statusCode, res.body).toBe(201);
    const { endpoint, secret } = res.json<{ endpoint: { id: string }; secret: string }>();
    return { id: endpoint.id, secret, receiver, types };
  };
  const webhookRows = (status?: string) => {
    let query = h.gateway.database.db.selectFrom('outbox').select(['id', 'attempts']).where('destination', '=', WEBHOOK_DESTINATION);
    if (status !== undefined) query = query.where('status', '=', status as 'delivering');
    return query.execute();
  };

  it('nothing is lost: every event reaches every subscribed endpoint once by webhook-id, signed, and a redelivery keeps its id and body', { timeout: 60_000 }, async () => {
    const [all, orders, stock] = receivers as [Receiver, Receiver, Receiver];
    const subscriptions = [await subscribe(all, ['*']), await subscribe(orders, ['order.created']), await subscribe(stock, ['inventory.updated'])];
    for (const r of receivers) r.holding = true;
    const env = childEnv(h, SERVE_ENV);
    const first = await startServe(env);
    running.push(first);
    const since = new Date(Date.now() - 1000).toISOString();
    const auth = { authorization: `Bearer ${key}` };
    for (let i = 0; i < 12; i++) {
      expect((await postJson(first.url, '/v1/orders', orderPayload(`PO-CRASH-${dialect}-${i}`), auth)).status).toBe(201);
      if (i % 2 === 0) expect((await postJson(first.url, '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 10 + i }] }, auth)).status).toBeLessThan(300);
    }

    // The receivers hold every request they get, so the process dies with deliveries sent and unanswered.
    await waitFor(async () => receivers.some((r) => r.received.length > 0) && (await webhookRows('delivering')).length > 0, { what: 'webhook deliveries in flight' });
    await first.kill('SIGKILL');
    const inFlight = await webhookRows('delivering');
    expect(inFlight.length).toBeGreaterThan(0);
    const beforeKill = new Map(receivers.map((r) => [r, [...r.received]]));
    for (const r of receivers) r.holding = false;

    running.push(await startServe(env));
    const events = (await h.request({ method: 'GET', url: `/v1/events?created_since=${since}&limit=100`, key })).json<{ events: { id: string; type: string }[] }>().events;
    expect(events).toHaveLength(18);
    const expected = subscriptions.reduce((n, s) => n + events.filter((e) => s.types.includes('*') || s.types.includes(e.type)).length, 0);
    expect(expected).toBe(18 + 12 + 6);
    await waitFor(async () => (await webhookRows('delivered')).length === expected, { what: 'every webhook delivered', timeoutMs: 30_000, intervalMs: 100 });

    for (const s of subscriptions) {
      const verifier = new Webhook(s.secret);
      const received = s.receiver.received;
      // Every request verifies with the endpoint's secret, and its webhook-id is the body's event id.
      for (const r of received) expect((verifier.verify(r.body, r.headers) as { id: string }).id).toBe(r.headers['webhook-id']);
      const ids = new Set(received.map((r) => r.headers['webhook-id']));
      const wanted = events.filter((e) => s.types.includes('*') || s.types.includes(e.type)).map((e) => e.id);
      expect([...ids].sort()).toEqual([...wanted].sort());
      // A request cut by the kill came again, with the same webhook-id and the same body.
      for (const cut of beforeKill.get(s.receiver) ?? []) {
        const again = received.filter((r) => r.headers['webhook-id'] === cut.headers['webhook-id']);
        expect(again.length).toBeGreaterThanOrEqual(2);
        for (const r of again) expect(r.body).toBe(cut.body);
      }
      const deliveries = (await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${s.id}/deliveries?limit=100`, key })).json<{ deliveries: { event_id: string; status: string }[] }>().deliveries;
      expect(deliveries.map((d) => d.event_id).sort()).toEqual([...wanted].sort());
      expect(deliveries.every((d) => d.status === 'delivered')).toBe(true);
    }
    expect([...beforeKill.values()].flat().length).toBeGreaterThan(0);
    // Claimed by the dead process, then again once its lease ran out.
    const redelivered = await h.gateway.database.db.selectFrom('outbox').select('attempts').where('id', 'in', inFlight.map((r) => r.id)).execute();
    for (const row of redelivered) expect(Number(row.attempts)).toBeGreaterThanOrEqual(2);
  });
});
