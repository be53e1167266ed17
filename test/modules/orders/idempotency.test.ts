import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOrderInput } from '../../../src/modules/orders/orders.schemas.js';
import { fingerprintOf } from '../../../src/platform/operations/idempotency.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { type OrderBody, orderPayload, seedCatalog } from './orders-support.js';

const HOUR = 3_600_000;

describe.each(dialects)('Idempotency-Key on POST /v1/* (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;
  let key: string;
  let otherOrg: string;

  beforeAll(async () => {
    sim = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: sim.url, HUB_TIMEOUT_MS: '3000' } });
    await seedCatalog(h, 'acme');
    await seedCatalog(h, 'globex');
    key = (await h.key('acme', 'orders:read,orders:write,inventory:write,products:write')).key;
    otherOrg = (await h.key('globex', 'orders:read,orders:write')).key;
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });
  beforeEach(async () => {
    await sim.reset();
  });

  const post = (url: string, payload: unknown, idem: string | undefined, k = key) =>
    h.request({ method: 'POST', url, payload: payload as object, key: k, headers: idem === undefined ? {} : { 'idempotency-key': idem } });
  const ordersWithPo = async (po: string) =>
    Number(
      (await h.gateway.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).where('po_number', '=', po).executeTakeFirstOrThrow()).n,
    );

  it('replays the stored response for the same key and body: one order, one hub event', async () => {
    const payload = orderPayload('PO-IDEM-1');
    const first = await post('/v1/orders', payload, 'key-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await post('/v1/orders', payload, 'key-1');
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toContain('application/json');
    expect(second.json<{ order: OrderBody }>().order.id).toBe(first.json<{ order: OrderBody }>().order.id);
    expect(second.body).toBe(first.body);
    expect(await ordersWithPo('PO-IDEM-1')).toBe(1);
    expect(sim.events().filter((e) => e.type === 'order.created')).toHaveLength(1);
  });

  it('422 for the same key with a different body, or on another route', async () => {
    expect((await post('/v1/orders', orderPayload('PO-IDEM-2'), 'key-2')).statusCode).toBe(201);
    const changed = expectError(await post('/v1/orders', orderPayload('PO-IDEM-2b'), 'key-2'), 422, 'idempotency_key_reused');
    expect(changed.error).toContain('key-2');
    expectError(await post('/v1/inventory', { rows: [{ sku: 'A', qty: 1 }] }, 'key-2'), 422, 'idempotency_key_reused');
    expect(await ordersWithPo('PO-IDEM-2b')).toBe(0);
  });

  it('409 while a live process holds the key, however long; taken over once its owner stops beating, or has none', async () => {
    const payload = orderPayload('PO-IDEM-3');
    const me = await h.org('acme');
    const db = h.gateway.database.db;
    const now = h.clock.now();
    // What a process leaves while its call runs: the key in flight for this very request, owned by that process.
    const inFlight = (key: string, owner: string | null, body: unknown = payload) =>
      db
        .insertInto('idempotency_keys')
        .values({ org_id: me.id, key, fingerprint: fingerprintOf('orders_create', { params: {}, query: {}, body: createOrderInput.parse(body) }), state: 'in_flight', status_code: null, content_type: null, response_body: null, owner_id: owner, locked_until: now.toISOString(), created_at: now.toISOString(), expires_at: new Date(now.getTime() + 24 * HOUR).toISOString() })
        .execute();
    const owner = 'gateway:elsewhere:1:alive';
    await db.insertInto('gateway_instances').values({ id: owner, started_at: now.toISOString(), heartbeat_ms: Date.now() + HOUR }).execute();
    await inFlight('key-3', owner);
    expectError(await post('/v1/orders', payload, 'key-3'), 409, 'idempotency_in_flight');
    h.clock.advance(2 * HOUR);
    expectError(await post('/v1/orders', payload, 'key-3'), 409, 'idempotency_in_flight');
    expect(await ordersWithPo('PO-IDEM-3')).toBe(0);
    // Its last heartbeat falls behind the TTL: the process is dead, and a retry takes its key over.
    await db.updateTable('gateway_instances').set({ heartbeat_ms: 0 }).where('id', '=', owner).execute();
    const taken = await post('/v1/orders', payload, 'key-3');
    expect(taken.statusCode, taken.body).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    const replay = await post('/v1/orders', payload, 'key-3');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await ordersWithPo('PO-IDEM-3')).toBe(1);

    // An owner that never registered, and a record from before owners were recorded, hold nothing.
    for (const [key, who] of [['key-3c', 'gateway:never:1:seen'], ['key-3d', null]] as const) {
      const other = orderPayload(`PO-IDEM-${key}`);
      await inFlight(key, who, other);
      const created = await post('/v1/orders', other, key);
      expect(created.statusCode, created.body).toBe(201);
      expect(created.headers['idempotent-replayed']).toBeUndefined();
    }
  });

  it('a retry while the first call still waits for the hub replays the answer as committed (delivery queued)', async () => {
    await sim.setMode({ kind: 'slow', delayMs: 60_000 });
    const payload = orderPayload('PO-IDEM-3b');
    const first = post('/v1/orders', payload, 'key-3b');
    // Committed: the order, its hub event and the replayable answer, in one transaction; the hub still has the event.
    await waitFor(
      async () => (await h.gateway.database.db.selectFrom('idempotency_keys').select('state').where('key', '=', 'key-3b').executeTakeFirst())?.state === 'done',
      { what: 'the first request to commit' },
    );
    const during = await post('/v1/orders', payload, 'key-3b');
    expect(during.statusCode, during.body).toBe(201);
    expect(during.headers['idempotent-replayed']).toBe('true');
    const committed = during.json<{ order: OrderBody }>().order;
    expect(committed.delivery).toEqual({ status: 'queued', attempts: 0, last_error: null });
    const done = await first;
    expect(done.statusCode, done.body).toBe(201);
    expect(done.json<{ order: OrderBody }>().order.id).toBe(committed.id);
    await sim.setMode({ kind: 'up' });
    // Once the first call answered, its own answer is the one kept.
    const replay = await post('/v1/orders', payload, 'key-3b');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(done.body);
    expect(await ordersWithPo('PO-IDEM-3b')).toBe(1);
  });

  it('records the answer of ack and set_status at commit, and of a no-op move too', async () => {
    const created = (await post('/v1/orders', orderPayload('PO-IDEM-8'), undefined)).json<{ order: OrderBody }>().order;
    const ack = await post(`/v1/orders/${created.id}/ack`, undefined, 'key-8a');
    expect(ack.statusCode, ack.body).toBe(200);
    const ackAgain = await post(`/v1/orders/${created.id}/ack`, undefined, 'key-8a');
    expect(ackAgain.headers['idempotent-replayed']).toBe('true');
    expect(ackAgain.body).toBe(ack.body);
    const patch = (idem: string, status: string) =>
      h.request({ method: 'PATCH', url: `/v1/orders/${created.po_number}/status`, payload: { status }, key, headers: { 'idempotency-key': idem } });
    const moved = await patch('key-8b', 'processing');
    expect(moved.statusCode, moved.body).toBe(200);
    const movedAgain = await patch('key-8b', 'processing');
    expect(movedAgain.headers['idempotent-replayed']).toBe('true');
    expect(movedAgain.body).toBe(moved.body);
    const noop = await patch('key-8c', 'processing');
    expect(noop.statusCode).toBe(200);
    expect(noop.json<{ order: OrderBody }>().order.delivery.status).toBe('delivered');
    expectError(await patch('key-8b', 'cancelled'), 422, 'idempotency_key_reused');
    const stored = await h.gateway.database.db.selectFrom('idempotency_keys').select(['key', 'state', 'status_code']).where('key', 'in', ['key-8a', 'key-8b', 'key-8c']).execute();
    expect(stored.map((r) => [r.key, r.state, Number(r.status_code)]).sort()).toEqual([
      ['key-8a', 'done', 200],
      ['key-8b', 'done', 200],
      ['key-8c', 'done', 200],
    ]);
    expect(sim.events().filter((e) => e.type === 'order.status_changed')).toHaveLength(2);
  });

  it('scopes keys per org', async () => {
    expect((await post('/v1/orders', orderPayload('PO-IDEM-4'), 'shared-key')).statusCode).toBe(201);
    const other = await post('/v1/orders', orderPayload('PO-IDEM-4'), 'shared-key', otherOrg);
    expect(other.statusCode, other.body).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await ordersWithPo('PO-IDEM-4')).toBe(2);
  });

  it('replays within 24 hours and runs the request again after', async () => {
    const payload = orderPayload('PO-IDEM-5');
    expect((await post('/v1/orders', payload, 'key-5')).statusCode).toBe(201);
    h.clock.advance(23 * HOUR);
    expect((await post('/v1/orders', payload, 'key-5')).headers['idempotent-replayed']).toBe('true');
    h.clock.advance(HOUR + 1);
    // Runs for real: the PO number now exists.
    expectError(await post('/v1/orders', payload, 'key-5'), 409, 'already_exists');
  });

  it('replays client errors too, and a bad request is not run twice', async () => {
    expect((await post('/v1/orders', orderPayload('PO-IDEM-6'), undefined)).statusCode).toBe(201);
    expectError(await post('/v1/orders', orderPayload('PO-IDEM-6'), 'key-6'), 409, 'already_exists');
    const replay = expectError(await post('/v1/orders', orderPayload('PO-IDEM-6'), 'key-6'), 409, 'already_exists');
    expect(replay.error).toContain('PO-IDEM-6');
    expectError(await post('/v1/orders', { po_number: '' }, 'key-6b'), 400, 'invalid_input');
    expectError(await post('/v1/orders', { po_number: '' }, 'key-6b'), 400, 'invalid_input');
  });

  it('frees the key after a 5xx so the client\'s retry runs again', async () => {
    const created = (await post('/v1/orders', orderPayload('PO-IDEM-7'), undefined)).json<{ order: OrderBody }>().order;
    let failOnce = true;
    h.gateway.services.orders.onStatusChanged(() => {
      if (!failOnce) return Promise.resolve();
      failOnce = false;
      return Promise.reject(new Error('transient'));
    });
    expect((await post(`/v1/orders/${created.id}/ack`, undefined, 'key-7')).statusCode).toBe(500);
    const retry = await post(`/v1/orders/${created.id}/ack`, undefined, 'key-7');
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.json<{ order: OrderBody }>().order.status).toBe('confirmed');
  });

  it('applies to every POST under /v1 without module code (inventory, products)', async () => {
    const rows = { rows: [{ sku: 'TIRE-225', qty: 3 }] };
    const first = await post('/v1/inventory', rows, 'inv-1');
    const again = await post('/v1/inventory', rows, 'inv-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(sim.events().filter((e) => e.type === 'inventory.updated')).toHaveLength(1);

    const product = { sku: 'IDEM-P', name: 'p' };
    expect((await post('/v1/products', product, 'prod-1')).statusCode).toBe(201);
    const replay = await post('/v1/products', product, 'prod-1');
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['with a space', 'my key'],
    ['empty', ''],
  ])('400 for a key that is %s', async (_label, bad) => {
    expectError(await post('/v1/orders', orderPayload('PO-IDEM-BAD'), bad), 400, 'invalid_input');
    expect(await ordersWithPo('PO-IDEM-BAD')).toBe(0);
  });

  it('ignores the header on other methods', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/orders', key, headers: { 'idempotency-key': 'get-1' } });
    expect(res.statusCode).toBe(200);
    const again = await h.request({ method: 'GET', url: '/v1/orders', key, headers: { 'idempotency-key': 'get-1' } });
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});
