import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/modules/webhooks/catalog.js';
import { FAILURES_TO_OPEN } from '../../../src/modules/telematics/polling/breaker.js';
import { dialects } from '../../support/harness.js';
import { readEdiFixture, seedEdiCatalog, seedPartners, submit } from '../edi/edi-support.js';
import { startTelematicsRig, type TelematicsRig } from '../telematics/telematics-support.js';
import { type Receiver, startReceiver } from './receiver.js';

interface EventOut {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

const DAY_MS = 86_400_000;

// Every type of the catalog is emitted by a real change somewhere, and a receiver on the reference library verifies it.
describe.each(dialects)('webhook event catalog (%s)', (dialect) => {
  let rig: TelematicsRig;
  let receiver: Receiver;
  let key: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    rig = await startTelematicsRig(dialect, { fleetSize: 2, pageSize: 10, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', SYNC_MAX_ATTEMPTS: '1' } });
    // The reference library checks each timestamp against the real time.
    rig.clock.set(new Date());
    await seedEdiCatalog(rig.h, 'acme');
    await seedPartners(rig.h, 'acme');
    key = (await rig.h.key('acme', 'all')).key;
  });
  afterAll(async () => {
    await rig?.close();
    await receiver?.stop();
  });

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) => {
    rig.clock.advance(1000);
    return rig.h.request({ method, url, key, ...(payload === undefined ? {} : { payload }) });
  };
  const drain = async () => {
    for (let i = 0; i < 50 && (await rig.h.gateway.delivery.drainOnce()) > 0; i++);
  };
  const syncRounds = async () => {
    const worker = rig.h.gateway.services.syncWorker;
    for (let i = 0; i < 50 && (await worker.tick()) > 0; i++) await worker.idle();
    await worker.idle();
  };
  const replay = async (connectionId: string) => {
    const to = rig.clock.now();
    const r = await call('POST', `/v1/telematics/connections/${connectionId}/replay`, { from: new Date(to.getTime() - DAY_MS).toISOString(), to: to.toISOString() });
    expect(r.statusCode, r.body).toBe(202);
    await syncRounds();
  };

  it('emits every catalog type from the change that causes it, each verified by the reference library', async () => {
    const created = await call('POST', '/v1/webhook-endpoints', { url: receiver.url, event_types: ['*'] });
    expect(created.statusCode, created.body).toBe(201);
    const { secret, endpoint } = created.json<{ secret: string; endpoint: { id: string } }>();

    // Orders, inventory, warranty.
    const order = await call('POST', '/v1/orders', { po_number: `PO-CAT-${dialect}`, ship_to: 'Dealer 12, 1 Main St', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '99.00' }] });
    expect(order.statusCode, order.body).toBe(201);
    expect((await call('PATCH', `/v1/orders/PO-CAT-${dialect}/status`, { status: 'confirmed' })).statusCode).toBe(200);
    expect((await call('POST', '/v1/inventory', { rows: [{ sku: 'TIRE-225', qty: 5 }] })).statusCode).toBeLessThan(300);
    const claim = await call('POST', '/v1/warranty-claims', { sku: 'TIRE-225', dot_number: 'DOT U2LL LMLR 5107', quantity: 1, description: 'Bulge' });
    expect(claim.statusCode, claim.body).toBe(201);
    const claimId = claim.json<{ claim: { id: string } }>().claim.id;
    expect((await call('PATCH', `/v1/warranty-claims/${claimId}`, { status: 'under_review' })).statusCode).toBe(200);

    // EDI: an 850 received (its 997 and 855 are documents sent).
    const edi = await submit(rig.h, key, readEdiFixture('po-4010-single.x12'));
    expect(edi.statusCode, edi.body.slice(0, 500)).toBe(200);
    const messageId = edi.json<{ message_id: string }>().message_id;

    // Telematics: connected, credentials refused, breaker opened and closed, a sync completed and one failed, disconnected.
    const { connection_id: iso } = await rig.connect('vendor1_livelink');
    await replay(iso);
    rig.sim.setMode('vendor1_livelink', { kind: 'reject' });
    await replay(iso);
    expect((await call('POST', `/v1/telematics/connections/${iso}/run`)).statusCode).toBe(409);
    rig.sim.setMode('vendor1_livelink', { kind: 'up' });
    const { connection_id: flaky } = await rig.connect('vendor13');
    rig.sim.setMode('vendor13', { kind: 'fail', status: 500 });
    for (let i = 0; i < FAILURES_TO_OPEN + 1; i++) await call('POST', `/v1/telematics/connections/${flaky}/run`);
    rig.sim.setMode('vendor13', { kind: 'up' });
    expect((await call('POST', `/v1/telematics/connections/${flaky}/run`)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/telematics/connections/${flaky}`)).statusCode).toBe(200);

    expect((await call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).statusCode).toBe(202);
    await drain();

    const verifier = new Webhook(secret);
    const bodies = receiver.received.map((r) => verifier.verify(r.body, r.headers) as EventOut);
    expect([...new Set(bodies.map((b) => b.type))].sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    const received = bodies.find((b) => b.type === 'edi.message.received');
    expect(received?.data).toMatchObject({ message_id: messageId, direction: 'inbound', type: '850', status: 'accepted', http_status: 200 });
    // Each body is the events API's record of it.
    for (const body of bodies.filter((b) => b.type !== 'webhook.test')) {
      const listed = await rig.h.request({ method: 'GET', url: `/v1/events/${body.id}`, key });
      expect(listed.json<{ event: EventOut }>().event).toEqual(body);
    }
  });

  it('announces a refused interchange too, with the status it was given', async () => {
    receiver.received.length = 0;
    const edi = await submit(rig.h, key, 'not x12 at all');
    expect(edi.statusCode).toBe(400);
    await drain();
    const types = receiver.received.map((r) => (JSON.parse(r.body) as EventOut).type);
    expect(types).toEqual(['edi.message.received']);
    expect((JSON.parse(receiver.received[0]?.body ?? '{}') as EventOut).data).toMatchObject({ status: 'not_x12', http_status: 400, partner_id: null });
  });
});
