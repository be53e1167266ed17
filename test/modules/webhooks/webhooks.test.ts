import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { seedEdiCatalog } from '../edi/edi-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { type Receiver, startReceiver } from './receiver.js';

interface EndpointOut {
  endpoint: { id: string; url: string; event_types: string[]; enabled: boolean; description: string | null; previous_secret_valid_until: string | null };
  secret: string;
}
interface EventOut {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}
interface DeliveryOut {
  id: string;
  event_id: string;
  type: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: { status_code: number | null; error: string | null; response_snippet: string | null; duration_ms: number }[];
}

const ALL_SCOPES = 'all';

// Every delivery test once with the POSTs sent from the send thread (the default) and once from the request thread.
const cases = dialects.flatMap((dialect) => (['on', 'off'] as const).map((sendThread) => ({ dialect, sendThread })));

describe.each(cases)('webhooks ($dialect, WEBHOOK_SEND_THREAD=$sendThread)', ({ dialect, sendThread }) => {
  let h: Harness;
  let receiver: Receiver;
  let other: Receiver;
  let keyA: string;
  let keyB: string;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    receiver = await startReceiver();
    other = await startReceiver();
    // Receivers on loopback need the operator's allow list; short periods let the tests pass a grace period's end, the last
    // attempt and an endpoint's disabling.
    h = await startHarness(dialect, { clock, env: { WEBHOOK_SEND_THREAD: sendThread, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_SECRET_GRACE_MS: '60000', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_DISABLE_AFTER_MS: '120000', WEBHOOK_RETRY_SCHEDULE: '30s' } });
    await seedEdiCatalog(h, 'org-a');
    await seedEdiCatalog(h, 'org-b');
    keyA = (await h.key('org-a', ALL_SCOPES)).key;
    keyB = (await h.key('org-b', ALL_SCOPES)).key;
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
    await other?.stop();
  });
  beforeEach(async () => {
    // Each test subscribes its own endpoints: none is left from an earlier one.
    await deleteAll(keyA);
    await deleteAll(keyB);
    // The reference library checks timestamps against the real time: the gateway's clock starts each test there.
    clock.set(new Date());
    receiver.received.length = 0;
    other.received.length = 0;
    receiver.status = 200;
    receiver.headers = {};
  });

  const call = async (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    h.request({ method, url, key, ...(payload === undefined ? {} : { payload }) });
  const createEndpoint = async (key: string, body: object): Promise<EndpointOut> => {
    const res = await call(key, 'POST', '/v1/webhook-endpoints', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<EndpointOut>();
  };
  const drain = async () => {
    for (let i = 0; i < 50 && (await h.gateway.delivery.drainOnce()) > 0; i++);
  };
  const deleteAll = async (key: string) => {
    const { endpoints } = (await call(key, 'GET', '/v1/webhook-endpoints?limit=100')).json<{ endpoints: { id: string }[] }>();
    for (const e of endpoints) await call(key, 'DELETE', `/v1/webhook-endpoints/${e.id}`);
  };
  let po = 0;
  /** One change of every kind the catalog carries from the REST API: 5 events. */
  const makeEvents = async (key: string) => {
    const poNumber = `PO-WH-${dialect}-${sendThread}-${++po}`;
    const order = await call(key, 'POST', '/v1/orders', { po_number: poNumber, ship_to: 'Dealer 12, 1 Main St', lines: [{ sku: 'TIRE-225', quantity: 4, unit_price: '129.99' }] });
    expect(order.statusCode, order.body).toBe(201);
    expect((await call(key, 'PATCH', `/v1/orders/${poNumber}/status`, { status: 'confirmed' })).statusCode).toBe(200);
    expect((await call(key, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 9 }] })).statusCode).toBeLessThan(300);
    const claim = await call(key, 'POST', '/v1/warranty-claims', { sku: 'TIRE-225', dot_number: 'DOT U2LL LMLR 5107', quantity: 1, description: 'Bulge' });
    expect(claim.statusCode, claim.body).toBe(201);
    const claimId = claim.json<{ claim: { id: string } }>().claim.id;
    expect((await call(key, 'PATCH', `/v1/warranty-claims/${claimId}`, { status: 'under_review' })).statusCode).toBe(200);
    return { poNumber, claimId };
  };
  const TYPES = ['order.created', 'order.status_changed', 'inventory.updated', 'warranty_claim.created', 'warranty_claim.updated'];

  it('creates, lists, gets, updates and deletes an endpoint; the secret is shown once', async () => {
    const created = await createEndpoint(keyA, { url: receiver.url, event_types: ['order.created'], description: 'orders' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created.endpoint).toMatchObject({ url: receiver.url, event_types: ['order.created'], enabled: true, description: 'orders' });
    const id = created.endpoint.id;
    const got = await call(keyA, 'GET', `/v1/webhook-endpoints/${id}`);
    expect(got.statusCode).toBe(200);
    expect(got.body).not.toContain('whsec_');
    const listed = (await call(keyA, 'GET', '/v1/webhook-endpoints')).json<{ endpoints: { id: string }[] }>();
    expect(listed.endpoints.map((e) => e.id)).toContain(id);
    const updated = await call(keyA, 'PATCH', `/v1/webhook-endpoints/${id}`, { event_types: ['*'], description: null, enabled: false });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json<EndpointOut>().endpoint).toMatchObject({ event_types: ['*'], description: null, enabled: false });
    expect((await call(keyA, 'DELETE', `/v1/webhook-endpoints/${id}`)).statusCode).toBe(200);
    expect((await call(keyA, 'GET', `/v1/webhook-endpoints/${id}`)).statusCode).toBe(404);
    expect((await call(keyA, 'DELETE', `/v1/webhook-endpoints/${id}`)).statusCode).toBe(404);
  });

  it('refuses bad input with a 400 naming the problem', async () => {
    const cases: [object, string][] = [
      [{ event_types: ['*'] }, 'url'],
      [{ url: receiver.url }, 'event_types'],
      [{ url: receiver.url, event_types: [] }, 'at least one'],
      [{ url: receiver.url, event_types: ['order.deleted'] }, 'each event type'],
      [{ url: receiver.url, event_types: ['*', 'order.created'] }, 'not both'],
      [{ url: receiver.url, event_types: ['order.created', 'order.created'] }, 'repeat'],
      [{ url: 'not a url', event_types: ['*'] }, 'absolute URL'],
      [{ url: 'ftp://127.0.0.1/x', event_types: ['*'] }, 'https'],
      [{ url: 'http://user:pw@127.0.0.1/x', event_types: ['*'] }, 'credentials'],
      [{ url: receiver.url, event_types: ['*'], secret: 'whsec_mine' }, 'secret'],
    ];
    for (const [body, says] of cases) {
      const res = await call(keyA, 'POST', '/v1/webhook-endpoints', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json<{ code: string }>().code).toBe('invalid_input');
      expect(res.body).toContain(says);
    }
    const { endpoint } = await createEndpoint(keyA, { url: receiver.url, event_types: ['*'] });
    expect((await call(keyA, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {})).statusCode).toBe(400);
    expect((await call(keyA, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { url: 'https://10.0.0.7/x' })).statusCode).toBe(400);
    expect((await call(keyA, 'GET', '/v1/events?created_since=yesterday')).statusCode).toBe(400);
    expect((await call(keyA, 'GET', '/v1/events?type=order.deleted')).statusCode).toBe(400);
    expect((await call(keyA, 'GET', '/v1/events?cursor=garbage')).statusCode).toBe(400);
    expect((await call(keyA, 'GET', '/v1/webhook-endpoints', undefined)).statusCode).toBe(200);
    await deleteAll(keyA);
  });

  it('delivers every event type signed per the spec: the reference library verifies each; tampering, an old timestamp and a wrong secret fail', async () => {
    const { secret } = await createEndpoint(keyA, { url: receiver.url, event_types: ['*'] });
    const { secret: otherSecret } = await createEndpoint(keyB, { url: other.url, event_types: ['*'] });
    const { poNumber } = await makeEvents(keyA);
    await drain();
    const verifier = new Webhook(secret);
    const bodies = receiver.received.map((r) => verifier.verify(r.body, r.headers) as EventOut);
    expect(bodies.map((b) => b.type).sort()).toEqual([...TYPES].sort());
    for (const [i, r] of receiver.received.entries()) {
      expect(r.headers['webhook-id']).toBe(bodies[i]?.id);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Object.keys(JSON.parse(r.body) as object).sort()).toEqual(['created_at', 'data', 'id', 'type']);
      expect(() => verifier.verify(r.body.replace('"data":', '"data": '), r.headers)).toThrow();
      expect(() => new Webhook(otherSecret).verify(r.body, r.headers)).toThrow();
    }
    expect(bodies.find((b) => b.type === 'order.created')?.data).toMatchObject({ po_number: poNumber });
    expect(bodies.find((b) => b.type === 'order.status_changed')?.data).toMatchObject({ po_number: poNumber, to: 'confirmed' });
    // Org A's events never reach org B's endpoint.
    expect(other.received).toEqual([]);

    // A delivery signed 10 minutes ago (the gateway's clock behind) is refused by the receiver's library.
    receiver.received.length = 0;
    clock.set(new Date(Date.now() - 10 * 60_000));
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 3 }] });
    await drain();
    expect(receiver.received).toHaveLength(1);
    const old = receiver.received[0];
    if (!old) throw new Error('no delivery');
    expect(() => verifier.verify(old.body, old.headers)).toThrow(/too old/i);
    await deleteAll(keyA);
    await deleteAll(keyB);
  });

  it('receiver down for the whole burst, then up: every event delivered once by webhook-id, failed attempts visible', async () => {
    const { endpoint, secret } = await createEndpoint(keyA, { url: receiver.url, event_types: ['*'] });
    await receiver.stop();
    await makeEvents(keyA);
    await makeEvents(keyA);
    await drain();
    expect(receiver.received).toEqual([]);
    const pending = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries;
    expect(pending).toHaveLength(10);
    for (const d of pending) {
      expect(d.status).toBe('pending');
      expect(d.attempts[0]).toMatchObject({ status_code: null });
      expect(d.attempts[0]?.error).toContain('unreachable');
    }
    const events = (await call(keyA, 'GET', '/v1/events?limit=10')).json<{ events: EventOut[] }>().events;
    await receiver.start();
    for (let round = 0; round < 6 && receiver.received.length < 10; round++) {
      clock.advance(30_000);
      await drain();
    }
    const ids = receiver.received.map((r) => new Webhook(secret).verify(r.body, r.headers) && r.headers['webhook-id']);
    expect(ids.sort()).toEqual(events.map((e) => e.id).sort());
    expect(new Set(ids).size).toBe(10);
    const done = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries;
    expect(done.every((d) => d.status === 'delivered' && d.attempt_count >= 2 && d.attempts.at(-1)?.status_code === 200)).toBe(true);
    await deleteAll(keyA);
  });

  it('retries on the schedule with jitter; a Retry-After holds back that endpoint only, capped', async () => {
    const { endpoint } = await createEndpoint(keyA, { url: receiver.url, event_types: ['inventory.updated'] });
    await createEndpoint(keyA, { url: other.url, event_types: ['inventory.updated'] });
    const deliveries = async () => (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries;
    const waitOf = (d: DeliveryOut | undefined) => Date.parse(d?.next_attempt_at ?? '') - clock.now().getTime();
    // A 500 without Retry-After: the schedule's 30 s, ±25%.
    receiver.status = 500;
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 1 }] });
    await drain();
    const [first] = await deliveries();
    expect(waitOf(first)).toBeGreaterThanOrEqual(22_500);
    expect(waitOf(first)).toBeLessThanOrEqual(37_500);
    // A 429 with Retry-After: 120 s for the new delivery and for the one already waiting on this endpoint.
    receiver.status = 429;
    receiver.headers = { 'retry-after': '120' };
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 2 }] });
    await drain();
    for (const d of await deliveries()) expect(waitOf(d)).toBeGreaterThanOrEqual(120_000);
    // The other endpoint was not held back: it has both events.
    expect(other.received).toHaveLength(2);
    const tried = receiver.received.length;
    receiver.status = 200;
    receiver.headers = {};
    clock.advance(60_000);
    await drain();
    expect(receiver.received).toHaveLength(tried);
    clock.advance(61_000);
    await drain();
    expect((await deliveries()).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    // A Retry-After of days is capped at WEBHOOK_RETRY_AFTER_MAX_MS (an hour by default).
    receiver.status = 503;
    receiver.headers = { 'retry-after': String(5 * 24 * 3600) };
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 3 }] });
    await drain();
    const [capped] = await deliveries();
    expect(capped?.status).toBe('pending');
    expect(waitOf(capped)).toBe(60 * 60_000);
    await deleteAll(keyA);
  });

  it('rotates the secret: both sign during the grace period, then only the new one', async () => {
    const { endpoint, secret: before } = await createEndpoint(keyA, { url: receiver.url, event_types: ['inventory.updated'] });
    const rotated = await call(keyA, 'POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret: after, endpoint: shown } = rotated.json<EndpointOut>();
    expect(after).not.toBe(before);
    expect(shown.previous_secret_valid_until).not.toBeNull();
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 1 }] });
    await drain();
    const during = receiver.received[0];
    if (!during) throw new Error('no delivery');
    expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(new Webhook(before).verify(during.body, during.headers)).toBeTruthy();
    expect(new Webhook(after).verify(during.body, during.headers)).toBeTruthy();
    // Past the grace period (60 s here): only the new secret signs.
    clock.advance(61_000);
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 2 }] });
    await drain();
    const later = receiver.received[1];
    if (!later) throw new Error('no delivery');
    expect(new Webhook(after).verify(later.body, later.headers)).toBeTruthy();
    expect(() => new Webhook(before).verify(later.body, later.headers)).toThrow();
    expect((await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}`)).json<EndpointOut>().endpoint.previous_secret_valid_until).toBeNull();
    await deleteAll(keyA);
  });

  it('sends a test event; a refused delivery shows its attempt and is retried by hand with the same webhook-id', async () => {
    const { endpoint, secret } = await createEndpoint(keyA, { url: receiver.url, event_types: ['order.created'] });
    receiver.status = 400;
    const test = await call(keyA, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`);
    expect(test.statusCode, test.body).toBe(202);
    const queued = test.json<{ delivery: DeliveryOut }>().delivery;
    expect(queued).toMatchObject({ type: 'webhook.test', status: 'pending', attempt_count: 0 });
    await drain();
    const failed = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ id: queued.id, status: 'failed', attempt_count: 1 });
    expect(failed[0]?.attempts[0]).toMatchObject({ status_code: 400, response_snippet: 'no thanks (400)' });
    receiver.status = 200;
    const retried = await call(keyA, 'POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${queued.id}/retry`);
    expect(retried.statusCode, retried.body).toBe(202);
    expect(retried.json<{ delivery: DeliveryOut }>().delivery.status).toBe('pending');
    await drain();
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.headers['webhook-id']).toBe(queued.event_id);
    const body = new Webhook(secret).verify(second?.body ?? '', second?.headers ?? {}) as EventOut;
    expect(body).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    const delivered = await call(keyA, 'POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/${queued.id}/retry`);
    expect(delivered.statusCode).toBe(409);
    expect((await call(keyA, 'POST', `/v1/webhook-endpoints/${endpoint.id}/deliveries/whd_nosuch/retry`)).statusCode).toBe(404);
    await deleteAll(keyA);
  });

  it('records a delivery failed after the last attempt, and disables an endpoint failing every attempt for too long', async () => {
    const { endpoint } = await createEndpoint(keyA, { url: receiver.url, event_types: ['inventory.updated'] });
    receiver.status = 503;
    const test = (await call(keyA, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).json<{ delivery: DeliveryOut }>().delivery;
    await drain();
    const retrying = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}`)).json<{ endpoint: { enabled: boolean; failing_since: string | null } }>().endpoint;
    expect(retrying).toMatchObject({ enabled: true, failing_since: clock.now().toISOString() });
    for (const step of [60_000, 70_000]) {
      clock.advance(step);
      await drain();
    }
    const [failed] = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries;
    expect(failed).toMatchObject({ id: test.id, status: 'failed', attempt_count: 3 });
    expect(failed?.attempts.map((a) => a.status_code)).toEqual([503, 503, 503]);
    expect(receiver.received).toHaveLength(3);
    const disabled = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}`)).json<{ endpoint: { enabled: boolean; disabled_reason: string } }>().endpoint;
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabled_reason).toContain('every attempt has failed since');
    // Disabled: the org's next events are not queued to it; enabling it again clears the reason.
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 4 }] });
    expect((await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries).toHaveLength(1);
    const enabled = (await call(keyA, 'PATCH', `/v1/webhook-endpoints/${endpoint.id}`, { enabled: true })).json<{ endpoint: { enabled: boolean; disabled_reason: string | null } }>().endpoint;
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it("keeps endpoints, deliveries and events to their org: another org's ids are 404", async () => {
    const { endpoint } = await createEndpoint(keyA, { url: receiver.url, event_types: ['*'] });
    await createEndpoint(keyB, { url: other.url, event_types: ['*'] });
    await makeEvents(keyA);
    await drain();
    const delivery = (await call(keyA, 'GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`)).json<{ deliveries: DeliveryOut[] }>().deliveries[0];
    if (!delivery) throw new Error('no delivery');
    const base = `/v1/webhook-endpoints/${endpoint.id}`;
    for (const [method, url, payload] of [
      ['GET', base],
      ['PATCH', base, { enabled: false }],
      ['DELETE', base],
      ['POST', `${base}/rotate-secret`],
      ['POST', `${base}/test`],
      ['GET', `${base}/deliveries`],
      ['POST', `${base}/deliveries/${delivery.id}/retry`],
      ['GET', `/v1/events/${delivery.event_id}`],
    ] as const) {
      const res = await call(keyB, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json<{ code: string }>().code).toBe('not_found');
    }
    expect(other.received).toEqual([]);
    const bEvents = (await call(keyB, 'GET', '/v1/events')).json<{ events: EventOut[] }>().events;
    expect(bEvents.map((e) => e.id)).not.toContain(delivery.event_id);
    expect((await call(keyA, 'GET', `/v1/events/${delivery.event_id}`)).statusCode).toBe(200);
    await deleteAll(keyA);
    await deleteAll(keyB);
  });

  it('lists the org’s events newest first, by type and time, in pages; and the event types', async () => {
    // Past every event the tests before made (one ran its clock ahead), so only this test's are since `start`.
    clock.advance(10 * 60_000);
    const start = clock.now().toISOString();
    clock.advance(1000);
    await makeEvents(keyA);
    const all = (await call(keyA, 'GET', `/v1/events?created_since=${start}`)).json<{ events: EventOut[] }>().events;
    expect(all.map((e) => e.type).sort()).toEqual([...TYPES].sort());
    expect(all.map((e) => e.created_at)).toEqual([...all.map((e) => e.created_at)].sort().reverse());
    const claims = (await call(keyA, 'GET', `/v1/events?type=warranty_claim.updated&created_since=${start}`)).json<{ events: EventOut[] }>().events;
    expect(claims).toHaveLength(1);
    expect(claims[0]?.data).toMatchObject({ status: 'under_review', previous_status: 'submitted' });
    const first = (await call(keyA, 'GET', `/v1/events?limit=2&created_since=${start}`)).json<{ events: EventOut[]; next_cursor: string }>();
    const second = (await call(keyA, 'GET', `/v1/events?limit=10&created_since=${start}&cursor=${first.next_cursor}`)).json<{ events: EventOut[]; next_cursor: null }>();
    expect([...first.events, ...second.events].map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(second.next_cursor).toBeNull();
    const one = await call(keyA, 'GET', `/v1/events/${all[0]?.id ?? ''}`);
    expect(one.json<{ event: EventOut }>().event).toEqual(all[0]);
    // Kept 30 days: past that an event is no longer listed or found.
    clock.advance(31 * 24 * 60 * 60 * 1000);
    expect((await call(keyA, 'GET', '/v1/events')).json<{ events: EventOut[] }>().events).toEqual([]);
    expect((await call(keyA, 'GET', `/v1/events/${all[0]?.id ?? ''}`)).statusCode).toBe(404);
    // Retention then deletes them, with their deliveries and attempts, once none of their deliveries is pending (the
    // earlier tests' endpoints are deleted: their last deliveries end now); an event of today stays.
    await drain();
    await call(keyA, 'POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 5 }] });
    const report = await h.gateway.retention.runOnce();
    expect(report.webhook_events?.deleted).toBeGreaterThanOrEqual(5);
    const { db } = h.gateway.database;
    const kept = await db.selectFrom('webhook_events').select(['id', 'created_at']).execute();
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept.every((e) => e.created_at >= new Date(clock.now().getTime() - 30 * 24 * 60 * 60 * 1000).toISOString())).toBe(true);
    expect(await db.selectFrom('webhook_deliveries').select('id').where('created_at', '<', start).execute()).toEqual([]);
    expect(await db.selectFrom('webhook_attempts').select('id').where('attempted_at', '<', start).execute()).toEqual([]);
    const types = (await call(keyA, 'GET', '/v1/webhook-event-types')).json<{ event_types: { type: string }[] }>().event_types.map((t) => t.type);
    expect(types).toEqual(expect.arrayContaining([...TYPES, 'webhook.test', 'edi.document.sent', 'telematics.sync.completed']));
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    const reader = (await h.key('org-a', 'webhooks:read')).key;
    const writer = (await h.key('org-a', 'orders:read')).key;
    expect((await call(reader, 'GET', '/v1/webhook-endpoints')).statusCode).toBe(200);
    expect((await call(reader, 'GET', '/v1/events')).statusCode).toBe(200);
    const refused = await call(reader, 'POST', '/v1/webhook-endpoints', { url: receiver.url, event_types: ['*'] });
    expect(refused.statusCode).toBe(403);
    expect((await call(writer, 'GET', '/v1/webhook-endpoints')).statusCode).toBe(403);
  });
});
