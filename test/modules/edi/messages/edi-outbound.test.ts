import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSim, type HubSim } from '../../../../src/sim/hub-sim.js';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import type { OrderBody } from '../../orders/orders-support.js';
import { type PartnerEndpoint, readBack, readEdiFixture, seedEdiCatalog, seedPartners, startPartnerEndpoint, submit, type SubmitBody } from '../edi-support.js';

interface Summary {
  id: string;
  direction: string;
  type: string;
  status: string;
  control_number: string;
  related_message_id: string | null;
  order_id: string | null;
  delivery: { status: string; attempts: number; last_error: string | null } | null;
}

describe.each(dialects)('outbound 855/856/810 (%s)', (dialect) => {
  let h: Harness;
  let hub: HubSim;
  let partner: PartnerEndpoint;
  let key: string;
  let intake: SubmitBody;

  beforeAll(async () => {
    hub = await startHubSim();
    partner = await startPartnerEndpoint();
    h = await startHarness(dialect, { env: { HUB_URL: hub.url } });
    await seedEdiCatalog(h, 'acme');
    await seedPartners(h, 'acme', { outboundUrl: partner.url });
    key = (await h.key('acme', 'edi:read,edi:write,orders:read,orders:write')).key;
    const res = await submit(h, key, readEdiFixture('po-4010-single.x12'));
    expect(res.statusCode, res.body).toBe(200);
    intake = res.json<SubmitBody>();
  });
  afterAll(async () => {
    await h.close();
    await hub.close();
    await partner.close();
  });
  beforeEach(() => {
    partner.answer(200);
  });

  const setStatus = async (po: string, status: string): Promise<OrderBody> => {
    const res =
      status === 'confirmed'
        ? await h.request({ method: 'POST', url: `/v1/orders/${po}/ack`, key })
        : await h.request({ method: 'PATCH', url: `/v1/orders/${po}/status`, payload: { status }, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ order: OrderBody }>().order;
  };
  const documentsOf = async (orderId: string): Promise<Summary[]> => {
    const res = await h.request({ method: 'GET', url: '/v1/edi/messages?direction=outbound&limit=200', key });
    return res.json<{ messages: Summary[] }>().messages.filter((m) => m.order_id === orderId);
  };
  const only = async (orderId: string, type: string): Promise<{ summary: Summary; x12: string }> => {
    const found = (await documentsOf(orderId)).filter((m) => m.type === type);
    expect(found).toHaveLength(1);
    const summary = found[0] as Summary;
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages/${summary.id}?include=raw`, key });
    return { summary, x12: res.json<{ message: { x12: string } }>().message.x12 };
  };
  /** Runs the delivery worker until nothing is due (what `serve` does in the background). */
  const drain = async (): Promise<void> => {
    while ((await h.gateway.delivery.drainOnce()) > 0);
  };
  const ymd = () => h.clock.now().toISOString().slice(0, 10).replaceAll('-', '');
  const hm = () => h.clock.now().toISOString().slice(11, 16).replace(':', '');

  it('acknowledged -> 855, shipped -> 856, delivered -> 810, each parsing back with correct counts', async () => {
    const orderId = intake.documents[0]?.order_id ?? '';
    await setStatus('PO-1001', 'confirmed');
    const ack = await only(orderId, '855');
    const ack855 = readBack(ack.x12);
    expect(ack855.body).toEqual([
      // BAK09: the day we acknowledge.
      `BAK*00*AD*PO-1001*20260601****${orderId}*${ymd()}`,
      // The 850's N1 loops, echoed.
      'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42',
      'N3*100 Main St*Suite 5',
      'N4*Springfield*IL*62701*US',
      // Every product id the partner sent, in its order.
      'PO1*1*4*EA*89.99**VP*TIRE-225*UP*012345678905',
      'ACK*IA*4*EA',
      'PO1*2*1*EA*25.0125**BP*B-77*VP*VALVE-KIT',
      'ACK*IA*1*EA',
      'CTT*2',
    ]);
    expect(ack855.interchange).toMatchObject({ senderQualifier: 'ZZ', senderId: 'TIREGATEWAY', receiverQualifier: 'ZZ', receiverId: 'BUYERCO', version: '00401', usage: 'P' });
    expect(ack855.interchange.groups[0]?.gs.slice(0, 3)).toEqual(['PR', 'TIREGATEWAY', 'BUYERCO']);
    expect(ack855.interchange.groups[0]?.version).toBe('004010');
    expect(ack.summary).toMatchObject({ status: 'generated', related_message_id: intake.message_id, delivery: { status: 'queued' } });

    await setStatus('PO-1001', 'processing');
    expect((await documentsOf(orderId)).map((m) => m.type)).toEqual(['855']);
    await setStatus('PO-1001', 'shipped');
    const asn = readBack((await only(orderId, '856')).x12);
    expect(asn.body).toEqual([
      `BSN*00*${orderId}*${ymd()}*${hm()}*0004`,
      'HL*1**S',
      // No carrier from the shipment or the partner profile: no TD5 rather than a placeholder.
      `DTM*011*${ymd()}`,
      // The 850's ship-to loop, echoed.
      'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42',
      'N3*100 Main St*Suite 5',
      'N4*Springfield*IL*62701*US',
      'HL*2*1*O',
      'PRF*PO-1001***20260601',
      `REF*VN*${orderId}`,
      'HL*3*2*I',
      'LIN*1*VP*TIRE-225*UP*012345678905',
      // Shipped, then ordered (SN105/SN106).
      'SN1*1*4*EA**4*EA',
      'HL*4*2*I',
      'LIN*2*BP*B-77*VP*VALVE-KIT',
      'SN1*2*1*EA**1*EA',
      'CTT*4',
    ]);
    expect(asn.interchange.groups[0]?.functionalId).toBe('SH');

    await setStatus('PO-1001', 'delivered');
    const inv = await only(orderId, '810');
    const invoice = readBack(inv.x12);
    expect(invoice.body).toEqual([
      `BIG*${ymd()}*INV${inv.summary.control_number}*20260601*PO-1001`,
      'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42',
      'N3*100 Main St*Suite 5',
      'N4*Springfield*IL*62701*US',
      `DTM*011*${ymd()}`,
      'IT1*1*4*EA*89.99**VP*TIRE-225*UP*012345678905',
      'PID*F****Touring 225/45R17',
      'IT1*2*1*EA*25.0125**BP*B-77*VP*VALVE-KIT',
      'PID*F****Valve stem kit',
      // 359.96 + 25.01 (25.0125 rounded to the cent)
      'TDS*38497',
      'CTT*2',
    ]);
    expect(invoice.interchange.groups[0]?.functionalId).toBe('IN');
    const numbers = (await documentsOf(orderId)).map((m) => Number(m.control_number));
    expect(new Set(numbers).size).toBe(3);
  });

  it('delivers the documents to the partner URL through the outbox and announces them to the hub', async () => {
    await drain();
    const orderId = intake.documents[0]?.order_id ?? '';
    const sent = await documentsOf(orderId);
    expect(sent.map((m) => m.delivery?.status)).toEqual(['delivered', 'delivered', 'delivered']);
    for (const doc of sent) {
      const got = partner.received.find((r) => r.headers['idempotency-key'] === doc.id);
      expect(got?.headers['content-type']).toBe('text/plain');
      readBack(got?.body ?? '');
    }
    const events = hub.events().filter((e) => e.type === 'edi.document');
    const forOrder = events.filter((e) => (e.data as { order_id: string | null }).order_id === orderId);
    expect(forOrder.map((e) => (e.data as { type: string }).type).sort()).toEqual(['810', '855', '856']);
    expect(forOrder[0]?.data).toMatchObject({ direction: 'outbound', partner: { name: 'BuyerCo' } });
    // The 997 of the intake went to the hub too, but not to the partner's URL (it was the HTTP answer).
    const ack997 = intake.reply?.message_id;
    expect(events.some((e) => (e.data as { message_id: string }).message_id === ack997)).toBe(true);
    expect(partner.received.some((r) => r.headers['idempotency-key'] === ack997)).toBe(false);
  });

  it('retries a partner that fails and records a partner that refuses', async () => {
    const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000161').replace('PO-1001', 'PO-1061');
    const order = (await submit(h, key, text)).json<SubmitBody>().documents[0]?.order_id ?? '';
    partner.answer(503);
    await setStatus('PO-1061', 'confirmed');
    await drain();
    const waiting = (await only(order, '855')).summary;
    expect(waiting.delivery).toMatchObject({ status: 'queued', attempts: 1, last_error: expect.stringContaining('partner answered 503') as unknown });
    partner.answer(400);
    await setStatus('PO-1061', 'cancelled');
    expect((await documentsOf(order)).map((m) => m.type)).toEqual(['855']);
    await h.gateway.database.db.updateTable('outbox').set({ next_attempt_at: '1970-01-01T00:00:00.000Z' }).where('id', '=', waiting.id).execute();
    await drain();
    expect((await only(order, '855')).summary.delivery).toMatchObject({ status: 'rejected', last_error: expect.stringContaining('partner answered 400') as unknown });
  });

  it('answers a 005010 partner in 005010, to its GS id, and keeps documents of a partner without a URL undelivered', async () => {
    const res = await submit(h, key, readEdiFixture('po-5010-multi.x12'));
    const orderId = res.json<SubmitBody>().documents[0]?.order_id ?? '';
    await setStatus('DN-77', 'confirmed');
    const { summary, x12 } = await only(orderId, '855');
    const back = readBack(x12);
    expect(back.interchange).toMatchObject({ version: '00501', receiverQualifier: '01', receiverId: '123456789' });
    expect(back.interchange.delimiters.repetition).toBe('^');
    expect(back.interchange.groups[0]?.gs.slice(0, 3)).toEqual(['PR', 'TIREGATEWAY', 'DEALERNET']);
    expect(back.interchange.groups[0]?.version).toBe('005010');
    expect(back.body).toEqual([`BAK*00*AD*DN-77*20260601****${orderId}*${ymd()}`, 'N1*ST*Dealer Net Central*92*D-9', 'N3*1 Depot Rd', 'N4*Columbus*OH*43004', 'PO1*1*8*EA*120.5**VP*WINTER-205', 'ACK*IA*8*EA', 'CTT*1']);
    expect(summary.delivery).toBeNull();
  });

  it('acknowledges a partial order with its refused lines (BAK02 AC, ACK IR)', async () => {
    const res = await submit(h, key, readEdiFixture('po-business-failures.x12'));
    const orderId = res.json<SubmitBody>().documents[0]?.order_id ?? '';
    await setStatus('PO-PARTIAL', 'confirmed');
    const acks = (await documentsOf(orderId)).filter((m) => m.type === '855');
    // One 855 at receipt (the refused lines); acknowledging the order would only repeat it word for word.
    expect(acks).toHaveLength(1);
    const bodies = await Promise.all(
      acks.map(async (m) => readBack((await h.request({ method: 'GET', url: `/v1/edi/messages/${m.id}?include=raw`, key })).json<{ message: { x12: string } }>().message.x12).body),
    );
    for (const body of bodies) {
      expect(body).toEqual([
        `BAK*00*AC*PO-PARTIAL*20260601****${orderId}*${ymd()}`,
        'N1*ST*Partial Wheels',
        'PO1*1*4*EA*89.99**VP*TIRE-225',
        'ACK*IA*4*EA',
        'PO1*2*2*EA*10**VP*NO-SUCH-SKU',
        'ACK*IR*2*EA',
        'PO1*3*1*CA*10**VP*VALVE-KIT',
        'ACK*IR*1*CA',
        'CTT*3',
      ]);
    }
  });

  it('sends nothing for orders that did not come from EDI, or for statuses without a document', async () => {
    const before = (await h.gateway.database.db.selectFrom('edi_messages').select('id').where('direction', '=', 'outbound').execute()).length;
    const products = (await h.key('acme', 'orders:write')).key;
    const created = await h.request({
      method: 'POST',
      url: '/v1/orders',
      key: products,
      payload: { po_number: 'API-1', ship_to: 'Counter', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '1' }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    await setStatus('API-1', 'confirmed');
    await setStatus('API-1', 'cancelled');
    const after = (await h.gateway.database.db.selectFrom('edi_messages').select('id').where('direction', '=', 'outbound').execute()).length;
    expect(after).toBe(before);
  });

  it('generates in the status change\'s transaction: a refused change leaves no document', async () => {
    const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000171').replace('PO-1001', 'PO-1071');
    const orderId = (await submit(h, key, text)).json<SubmitBody>().documents[0]?.order_id ?? '';
    expectError(await h.request({ method: 'PATCH', url: '/v1/orders/PO-1071/status', payload: { status: 'delivered' }, key }), 409, 'invalid_transition');
    expect(await documentsOf(orderId)).toEqual([]);
  });
});
