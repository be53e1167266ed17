import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPurchaseOrders, takePurchaseOrder } from '../../../../src/modules/edi/messages/order-intake.js';
import { purchaseOrderAck } from '../../../../src/modules/edi/messages/outbound-sets.js';
import { unitsToDecimal } from '../../../../src/modules/edi/messages/status-documents.js';
import { parseX12 } from '../../../../src/modules/edi/x12/index.js';
import { AppError } from '../../../../src/platform/core/errors.js';
import { expectError } from '../../../support/auth-checks.js';
import { useInProcessCli } from '../../../support/cli.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { readBack, readEdiFixture, seedEdiCatalog, seedPartners, submit, type SubmitBody } from '../edi-support.js';

// GS1's own example SSCC (check digit 7), and two more with their mod-10 check digits.
const SSCC_1 = '106141411234567897';
const SSCC_2 = '000614141000000014';

interface Summary {
  id: string;
  type: string;
  order_id: string | null;
  control_number: string;
}

describe.each(dialects)('856/810/855 a retailer\'s guide accepts (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let isa = 700;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    await seedPartners(h, 'acme');
    key = (await h.key('acme', 'edi:read,edi:write,orders:read,orders:write')).key;
    await h.gateway.services.ediPartners.setProfile('acme', 'BuyerCo', {
      shipFrom: 'Tire Gateway DC',
      shipFromId: '92/WH-1',
      shipFromAddress: '5 Depot Rd;Joliet;IL;60431;US',
      remitTo: 'Tire Gateway Inc',
      remitToId: '1/123456789',
      terms: '2/10/30',
      require: 'TD1,TD5,REF-BM,MAN',
    });
  });
  afterAll(() => h.close());

  /** The single-PO fixture under a fresh ISA13 and PO number; PO105 (price basis) PE on line 1. */
  const newPo = async (po: string): Promise<string> => {
    isa += 1;
    const text = readEdiFixture('po-4010-single.x12')
      .replaceAll('000000101', `000000${isa}`)
      .replace('PO-1001', po)
      .replace('PO1*1*4*EA*89.99**', 'PO1*1*4*EA*89.99*PE*');
    const res = await submit(h, key, text);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<SubmitBody>().documents[0]?.order_id ?? '';
  };
  const move = (po: string, payload: Record<string, unknown>) => h.request({ method: 'PATCH', url: `/v1/orders/${po}/status`, payload, key });
  const moveOk = async (po: string, payload: Record<string, unknown>): Promise<void> => {
    const res = await move(po, payload);
    expect(res.statusCode, res.body).toBe(200);
  };
  const documents = async (orderId: string, type: string): Promise<{ summary: Summary; x12: string }[]> => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages?direction=outbound&type=${type}&limit=200`, key });
    const found = res.json<{ messages: Summary[] }>().messages.filter((m) => m.order_id === orderId);
    return Promise.all(
      found.map(async (summary) => ({
        summary,
        x12: (await h.request({ method: 'GET', url: `/v1/edi/messages/${summary.id}?include=raw`, key })).json<{ message: { x12: string } }>().message.x12,
      })),
    );
  };
  const ymd = () => h.clock.now().toISOString().slice(0, 10).replaceAll('-', '');
  const hm = () => h.clock.now().toISOString().slice(11, 16).replace(':', '');

  const shipment = {
    carrier: 'UPSN',
    service: 'GROUND',
    tracking_number: '1Z999AA10123456784',
    bill_of_lading: 'BOL-88213',
    weight: { value: 92.5, unit: 'LB' },
    packs: [
      { sscc: SSCC_1, lines: [{ line_no: 1, quantity: 3 }] },
      { sscc: SSCC_2, lines: [{ line_no: 1, quantity: 1 }, { line_no: 2, quantity: 1 }] },
    ],
  };

  it('855: echoes every product id the partner sent and the price basis (PO105)', async () => {
    const orderId = await newPo('RT-855');
    await moveOk('RT-855', { status: 'confirmed' });
    const [ack] = await documents(orderId, '855');
    expect(readBack(ack?.x12 ?? '').body).toEqual([
      `BAK*00*AD*RT-855*20260601****${orderId}*${ymd()}`,
      'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42',
      'N3*100 Main St*Suite 5',
      'N4*Springfield*IL*62701*US',
      'PO1*1*4*EA*89.99*PE*VP*TIRE-225*UP*012345678905',
      'ACK*IA*4*EA',
      'PO1*2*1*EA*25.0125**BP*B-77*VP*VALVE-KIT',
      'ACK*IA*1*EA',
      'CTT*2',
    ]);
  });

  it("refuses a shipped move without what the partner's guide requires, and sends nothing", async () => {
    const orderId = await newPo('RT-REQ');
    await moveOk('RT-REQ', { status: 'confirmed' });
    await moveOk('RT-REQ', { status: 'processing' });
    const bare = expectError(await move('RT-REQ', { status: 'shipped' }), 422, 'partner_requirements_unmet');
    expect(bare.error).toMatch(/BuyerCo requires TD1, TD5, REF-BM, MAN/);
    expect((bare.details as { segment: string }[]).map((d) => d.segment)).toEqual(['TD1', 'TD5', 'REF-BM', 'MAN']);
    const partial = expectError(await move('RT-REQ', { status: 'shipped', shipment: { carrier: 'UPSN', bill_of_lading: 'B1' } }), 422, 'partner_requirements_unmet');
    expect((partial.details as { segment: string; needs: string }[]).map((d) => d.needs)).toEqual(['shipment.weight', 'shipment.packs (with their SSCC-18)']);
    const order = (await h.request({ method: 'GET', url: '/v1/orders/RT-REQ', key })).json<{ order: { status: string } }>().order;
    expect(order.status).toBe('processing');
    expect(await documents(orderId, '856')).toEqual([]);
  });

  it('856: ship-from/ship-to N1 loops, TD1, TD5 with the SCAC, REF BM/CN, pack level with MAN*GM SSCC-18', async () => {
    const orderId = await newPo('RT-856');
    await moveOk('RT-856', { status: 'confirmed' });
    await moveOk('RT-856', { status: 'processing' });
    await moveOk('RT-856', { status: 'shipped', shipment });
    const [asn] = await documents(orderId, '856');
    const back = readBack(asn?.x12 ?? '');
    expect(back.interchange.groups[0]?.functionalId).toBe('SH');
    expect(back.body).toEqual([
      `BSN*00*${orderId}*${ymd()}*${hm()}*0001`,
      'HL*1**S',
      'TD1*CTN25*2****G*92.5*LB',
      'TD5*B*2*UPSN**GROUND',
      'REF*BM*BOL-88213',
      'REF*CN*1Z999AA10123456784',
      `DTM*011*${ymd()}`,
      'N1*SF*Tire Gateway DC*92*WH-1',
      'N3*5 Depot Rd',
      'N4*Joliet*IL*60431*US',
      'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42',
      'N3*100 Main St*Suite 5',
      'N4*Springfield*IL*62701*US',
      'HL*2*1*O',
      'PRF*RT-856***20260601',
      `REF*VN*${orderId}`,
      'HL*3*2*P',
      `MAN*GM*${SSCC_1}`,
      'HL*4*3*I',
      'LIN*1*VP*TIRE-225*UP*012345678905',
      'SN1*1*3*EA**4*EA',
      'HL*5*2*P',
      `MAN*GM*${SSCC_2}`,
      'HL*6*5*I',
      'LIN*1*VP*TIRE-225*UP*012345678905',
      'SN1*1*1*EA**4*EA',
      'HL*7*5*I',
      'LIN*2*BP*B-77*VP*VALVE-KIT',
      'SN1*2*1*EA**1*EA',
      'CTT*7',
    ]);
    // Every SSCC in a MAN*GM carries a valid GS1 check digit, and every item sits under a pack.
    const hls = back.body.filter((s) => s.startsWith('HL*')).map((s) => s.split('*'));
    const packs = new Set(hls.filter((s) => s[3] === 'P').map((s) => s[1]));
    expect(hls.filter((s) => s[3] === 'I').every((s) => packs.has(s[2] ?? ''))).toBe(true);
  });

  it('810: N1*RE and N1*ST, ITD terms, DTM ship date, integer money from PO104 to TDS', async () => {
    const orderId = await newPo('RT-810');
    await moveOk('RT-810', { status: 'confirmed' });
    await moveOk('RT-810', { status: 'processing' });
    await moveOk('RT-810', { status: 'shipped', shipment });
    const shippedOn = ymd();
    h.clock.advance(2 * 24 * 3600 * 1000);
    await moveOk('RT-810', { status: 'delivered' });
    const [inv] = await documents(orderId, '810');
    expect(readBack(inv?.x12 ?? '').body).toEqual([
      `BIG*${ymd()}*INV${inv?.summary.control_number ?? ''}*20260601*RT-810`,
      'N1*RE*Tire Gateway Inc*1*123456789',
      'N1*ST*ISAAC TIRE AND WHEEL*92*STORE42',
      'N3*100 Main St*Suite 5',
      'N4*Springfield*IL*62701*US',
      // 2 % off if paid in 10 days, net 30.
      'ITD*08*3*2**10**30',
      `DTM*011*${shippedOn}`,
      'IT1*1*4*EA*89.99*PE*VP*TIRE-225*UP*012345678905',
      'PID*F****Touring 225/45R17',
      'IT1*2*1*EA*25.0125**BP*B-77*VP*VALVE-KIT',
      'PID*F****Valve stem kit',
      // 359.96 + 25.01 (25.0125 rounded to the cent)
      'TDS*38497',
      // The carrier and the bill of lading of the shipment.
      'CAD****UPSN*GROUND**BM*BOL-88213',
      'CTT*2',
    ]);
  });

  it('one 855 per order event: a partial PO is acknowledged (AC) once', async () => {
    const res = await submit(h, key, readEdiFixture('po-business-failures.x12'));
    const orderId = res.json<SubmitBody>().documents[0]?.order_id ?? '';
    expect(await documents(orderId, '855')).toHaveLength(1);
    await moveOk('PO-PARTIAL', { status: 'confirmed' });
    const acks = await documents(orderId, '855');
    expect(acks).toHaveLength(1);
    expect(readBack(acks[0]?.x12 ?? '').body[0]).toBe(`BAK*00*AC*PO-PARTIAL*20260601****${orderId}*${ymd()}`);
  });

  it('a partner without requirements takes a shipped move without a shipment, or with carrier data and no packs (S O I)', async () => {
    const sent = await submit(h, key, readEdiFixture('po-5010-multi.x12'));
    expect(sent.statusCode, sent.body).toBe(200);
    const orderId = sent.json<SubmitBody>().documents[0]?.order_id ?? '';
    await moveOk('DN-77', { status: 'confirmed' });
    await moveOk('DN-77', { status: 'processing' });
    await moveOk('DN-77', { status: 'shipped', shipment: { carrier: 'FDEG', tracking_number: '7712-3456' } });
    const [asn] = await documents(orderId, '856');
    const body = readBack(asn?.x12 ?? '').body;
    expect(body[0]).toMatch(/\*0004$/);
    expect(body).toContain('TD5*B*2*FDEG');
    expect(body).toContain('REF*CN*7712-3456');
    expect(body).toEqual(expect.arrayContaining(['N1*ST*Dealer Net Central*92*D-9', 'N3*1 Depot Rd', 'N4*Columbus*OH*43004']));
    expect(body.some((s) => s.startsWith('TD1') || s.startsWith('MAN') || s.startsWith('N1*SF'))).toBe(false);
  });
});

/** Sets SE01 to the segments from ST to SE, after a test took segments out of a fixture. */
function recount(x12: string): string {
  const segments = x12.split('~\n');
  const st = segments.findIndex((seg) => seg.startsWith('ST*'));
  const se = segments.findIndex((seg) => seg.startsWith('SE*'));
  segments[se] = (segments[se] ?? '').replace(/^SE\*\d+\*/, `SE*${se - st + 1}*`);
  return segments.join('~\n');
}

/** TDS01 as the partner checks it: each IT1's quantity x price rounded half up to the cent, plus SAC charges, less allowances. */
function expectedTdsCents(body: readonly string[]): bigint {
  const units = (text: string): bigint => {
    const [whole = '0', fraction = ''] = text.split('.');
    return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0'));
  };
  let cents = 0n;
  for (const seg of body.filter((s) => s.startsWith('IT1*'))) {
    const [, , quantity = '0', , price = '0'] = seg.split('*');
    cents += (BigInt(quantity) * units(price) + 50n) / 100n;
  }
  for (const seg of body.filter((s) => s.startsWith('SAC*'))) {
    const [, kind, , , , amount = '0'] = seg.split('*');
    cents += kind === 'C' ? BigInt(amount) : -BigInt(amount);
  }
  return cents;
}

describe.each(dialects)("a big-box retailer's guide: 855/856/810 from the 850, the partner profile and the shipment (%s)", (dialect) => {
  let h: Harness;
  let key: string;
  let isa = 900;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    await seedPartners(h, 'acme');
    key = (await h.key('acme', 'edi:read,edi:write,orders:read,orders:write')).key;
    const partners = h.gateway.services.ediPartners;
    await partners.create({
      org: 'acme',
      name: 'BigBox',
      isa: 'ZZ/BIGBOX',
      shipFrom: 'Tire Gateway DC',
      shipFromId: '92/WH-1',
      remitTo: 'Tire Gateway Inc',
      remitToId: '1/123456789',
      vendorNumber: 'V-12345',
      scac: 'ODFL',
      leadDays: '2',
      terms: '60',
      require855: 'N1-ST,N1-BT,N1-BY,REF-IA,ACK-068',
      require856: 'N1-SF,N1-ST,TD1,TD5,REF-BM,REF-CN,REF-IA,MAN,PO4',
      require810: 'N1-BT,N1-RE,N1-ST,REF-IA,ITD,DTM-011,SAC,CAD',
    });
    // A partner that requires what its POs do not carry: no DTM*010 and no bill-to, buyer or lead days.
    await partners.create({ org: 'acme', name: 'Sparse', isa: 'ZZ/SPARSE', require855: 'ACK-068', require856: 'TD5' });
  });
  afterAll(() => h.close());

  /** The retail fixture under a fresh ISA13 and PO number, from `sender`; `drop` takes segments out of it. */
  const newPo = async (po: string, sender = 'BIGBOX', drop: RegExp | undefined = undefined): Promise<string> => {
    isa += 1;
    let text = readEdiFixture('po-4010-retail.x12')
      .replaceAll('000000900', `000000${isa}`)
      .replace('RT-PO', po)
      .replace('ZZ*BIGBOX         ', `ZZ*${sender.padEnd(15)}`)
      .replace('GS*PO*BIGBOX*', `GS*PO*${sender}*`);
    if (drop !== undefined) text = recount(text.split('~\n').filter((seg) => !drop.test(seg)).join('~\n'));
    const res = await submit(h, key, text);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<SubmitBody>().documents[0]?.status).toBe('accepted');
    return res.json<SubmitBody>().documents[0]?.order_id ?? '';
  };
  const move = (po: string, payload: Record<string, unknown>) => h.request({ method: 'PATCH', url: `/v1/orders/${po}/status`, payload, key });
  const moveOk = async (po: string, payload: Record<string, unknown>): Promise<void> => {
    const res = await move(po, payload);
    expect(res.statusCode, res.body).toBe(200);
  };
  const statusOf = async (po: string): Promise<string> => (await h.request({ method: 'GET', url: `/v1/orders/${po}`, key })).json<{ order: { status: string } }>().order.status;
  const sent = async (orderId: string, type: string): Promise<{ summary: Summary; body: string[] }[]> => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages?direction=outbound&type=${type}&limit=200`, key });
    const found = res.json<{ messages: Summary[] }>().messages.filter((m) => m.order_id === orderId);
    return Promise.all(
      found.map(async (summary) => {
        const x12 = (await h.request({ method: 'GET', url: `/v1/edi/messages/${summary.id}?include=raw`, key })).json<{ message: { x12: string } }>().message.x12;
        return { summary, body: readBack(x12).body };
      }),
    );
  };
  const ymd = () => h.clock.now().toISOString().slice(0, 10).replaceAll('-', '');
  const hm = () => h.clock.now().toISOString().slice(11, 16).replace(':', '');
  const shipment = {
    carrier: 'UPSN',
    service: 'GROUND',
    tracking_number: '1Z999AA10123456784',
    bill_of_lading: 'BOL-1',
    weight: { value: 40, unit: 'KG' },
    packs: [
      { sscc: SSCC_1, lines: [{ line_no: 1, quantity: 4 }] },
      { sscc: SSCC_2, lines: [{ line_no: 2, quantity: 3 }] },
    ],
    charges: [
      { type: 'charge', code: 'D240', amount: '12.50' },
      { type: 'allowance', code: 'C310', amount: '5.25' },
    ],
  };
  const shipTo = ['N1*ST*BIG BOX STORE 42*92*STORE42', 'N3*100 Main St*Suite 5', 'N4*Springfield*IL*62701*US'];
  const billTo = ['N1*BT*BIG BOX ACCOUNTS PAYABLE*92*AP-1', 'N3*PO Box 500', 'N4*Bentonville*AR*72712*US'];

  it('855, 856 and 810 carry every segment the guide requires, with the values of the 850, the profile and the shipment', async () => {
    const orderId = await newPo('BB-1');
    const acked = ymd();
    await moveOk('BB-1', { status: 'confirmed' });
    const [ack] = await sent(orderId, '855');
    expect(ack?.body).toEqual([
      // BAK04 the PO date, BAK08 our order, BAK09 the day we acknowledge.
      `BAK*00*AD*BB-1*20260601****${orderId}*${acked}`,
      'REF*IA*V-12345',
      // Every N1 loop the 850 named, in its order.
      'N1*BY*BIG BOX STORES INC*92*BUYER-7',
      ...billTo,
      ...shipTo,
      'PO1*1*4*EA*89.99*PE*VP*TIRE-225*UP*012345678905*BP*BB-225',
      // The 850 asks 2026-06-10 (header DTM*010); our 2 lead days allow it.
      'ACK*IA*4*EA*068*20260610',
      'PO1*2*3*EA*25.0125**BP*B-77*VP*VALVE-KIT*UP*098765432109',
      // The line asks 2026-06-02 (its own DTM*010): 2 lead days from 2026-06-01 make it 2026-06-03.
      'ACK*IA*3*EA*068*20260603',
      'CTT*2',
    ]);

    await moveOk('BB-1', { status: 'processing' });
    await moveOk('BB-1', { status: 'shipped', shipment });
    const shippedOn = ymd();
    const [asn] = await sent(orderId, '856');
    expect(asn?.body).toEqual([
      `BSN*00*${orderId}*${shippedOn}*${hm()}*0001`,
      'HL*1**S',
      'TD1*CTN25*2****G*40*KG',
      // The shipment's SCAC wins over the profile's default.
      'TD5*B*2*UPSN**GROUND',
      'REF*BM*BOL-1',
      'REF*CN*1Z999AA10123456784',
      `DTM*011*${shippedOn}`,
      'N1*SF*Tire Gateway DC*92*WH-1',
      ...shipTo,
      'HL*2*1*O',
      'PRF*BB-1***20260601',
      `REF*VN*${orderId}`,
      'REF*IA*V-12345',
      'HL*3*2*P',
      `MAN*GM*${SSCC_1}`,
      'HL*4*3*I',
      'LIN*1*VP*TIRE-225*UP*012345678905*BP*BB-225',
      // Shipped (SN102) and ordered (SN105).
      'SN1*1*4*EA**4*EA',
      // The 850's PO4 for the line.
      'PO4*4*1*EA',
      'HL*5*2*P',
      `MAN*GM*${SSCC_2}`,
      'HL*6*5*I',
      'LIN*2*BP*B-77*VP*VALVE-KIT*UP*098765432109',
      'SN1*2*3*EA**3*EA',
      // The 850 sent none: one each per each.
      'PO4*1*1*EA',
      'CTT*6',
    ]);

    h.clock.advance(2 * 24 * 3600 * 1000);
    await moveOk('BB-1', { status: 'delivered' });
    const [inv] = await sent(orderId, '810');
    expect(inv?.body).toEqual([
      `BIG*${ymd()}*INV${inv?.summary.control_number ?? ''}*20260601*BB-1`,
      'REF*IA*V-12345',
      // The 850's bill-to, the profile's remit-to, the 850's ship-to.
      ...billTo,
      'N1*RE*Tire Gateway Inc*1*123456789',
      ...shipTo,
      'ITD*05*3*****60',
      `DTM*011*${shippedOn}`,
      'IT1*1*4*EA*89.99*PE*VP*TIRE-225*UP*012345678905*BP*BB-225',
      'PID*F****Touring 225/45R17',
      'IT1*2*3*EA*25.0125**BP*B-77*VP*VALVE-KIT*UP*098765432109',
      'PID*F****Valve stem kit',
      // 359.96 + 75.04 (3 x 25.0125 = 75.0375, to the cent) + 12.50 freight - 5.25 allowance = 442.25
      'TDS*44225',
      'CAD****UPSN*GROUND**BM*BOL-1',
      'SAC*C*D240***1250',
      'SAC*A*C310***525',
      'CTT*2',
    ]);
    expect(expectedTdsCents(inv?.body ?? [])).toBe(44225n);
    // The order's own subtotal is the lines alone.
    const order = (await h.request({ method: 'GET', url: '/v1/orders/BB-1', key })).json<{ order: { totals: { subtotal: string } } }>().order;
    expect(order.totals.subtotal).toBe('435.00');
  });

  it("prices an EDI order in the org's currency; the 810's N2 amounts round a 3-digit currency to the cent", async () => {
    await h.gateway.services.orgs.setSettings('acme', ['orders.currency=KWD']);
    try {
      const orderId = await newPo('BB-KWD');
      const order = (await h.request({ method: 'GET', url: '/v1/orders/BB-KWD', key })).json<{ order: { currency: string; lines: { line_total: string }[]; totals: { subtotal: string } } }>().order;
      // 4 x 89.99 and 3 x 25.0125 (75.0375, half away from zero to the fils).
      expect(order).toMatchObject({ currency: 'KWD', lines: [{ line_total: '359.960' }, { line_total: '75.038' }], totals: { subtotal: '434.998' } });
      for (const status of ['confirmed', 'processing']) await moveOk('BB-KWD', { status });
      await moveOk('BB-KWD', { status: 'shipped', shipment: { ...shipment, charges: [{ type: 'charge', code: 'D240', amount: '12.505' }] } });
      await moveOk('BB-KWD', { status: 'delivered' });
      const [inv] = await sent(orderId, '810');
      // 434.998 + 12.505 = 447.503, each rounded to the cent on its own: 435.00 + 12.51.
      expect(inv?.body.filter((seg) => /^(TDS|SAC)\*/.test(seg))).toEqual(['TDS*44751', 'SAC*C*D240***1251']);
    } finally {
      await h.gateway.services.orgs.setSettings('acme', ['orders.currency=USD']);
    }
  });

  it("855: a missing schedule date refuses the confirmation and sends nothing; the profile's lead days then fill it", async () => {
    const orderId = await newPo('SP-855', 'SPARSE', /^(DTM|N1\*BY|N1\*BT|N3\*PO Box|N4\*Bentonville)/);
    const refused = expectError(await move('SP-855', { status: 'confirmed' }), 422, 'partner_requirements_unmet');
    expect(refused.error).toMatch(/partner Sparse requires ACK-068 in its 855: send .*DTM\*010.*--lead-days/);
    expect(refused.details).toEqual([{ document: '855', segment: 'ACK-068', needs: expect.stringMatching(/lead-days/) as unknown }]);
    expect(await statusOf('SP-855')).toBe('submitted');
    expect(await sent(orderId, '855')).toEqual([]);

    await h.gateway.services.ediPartners.setProfile('acme', 'Sparse', { leadDays: '0' });
    await moveOk('SP-855', { status: 'confirmed' });
    const [ack] = await sent(orderId, '855');
    expect(ack?.body.filter((seg) => seg.startsWith('ACK'))).toEqual([`ACK*IA*4*EA*068*${ymd()}`, `ACK*IA*3*EA*068*${ymd()}`]);
    // Only the loops the 850 named are echoed.
    expect(ack?.body.filter((seg) => seg.startsWith('N1'))).toEqual(['N1*ST*BIG BOX STORE 42*92*STORE42']);
  });

  it("856: TD5 required and no SCAC anywhere refuses the shipped move; the profile's default SCAC then fills it", async () => {
    const orderId = await newPo('SP-856', 'SPARSE', /^DTM/);
    await moveOk('SP-856', { status: 'confirmed' });
    await moveOk('SP-856', { status: 'processing' });
    const refused = expectError(await move('SP-856', { status: 'shipped' }), 422, 'partner_requirements_unmet');
    expect(refused.error).toMatch(/requires TD5 in its 856: send shipment.carrier \(or a default SCAC/);
    expect(await statusOf('SP-856')).toBe('processing');
    expect(await sent(orderId, '856')).toEqual([]);

    await h.gateway.services.ediPartners.setProfile('acme', 'Sparse', { scac: 'ODFL' });
    await moveOk('SP-856', { status: 'shipped' });
    const [asn] = await sent(orderId, '856');
    expect(asn?.body).toContain('TD5*B*2*ODFL');
    // Nothing more than the data gives: no TD1 without weight or packs, no BEST WAY placeholder anywhere.
    expect(asn?.body.some((seg) => seg.startsWith('TD1') || seg.includes('BEST WAY'))).toBe(false);
  });

  it("810: what the invoice will lack refuses the shipped move (the shipment can still send it); a bill-to required later refuses delivery", async () => {
    const orderId = await newPo('BB-NOSAC');
    await moveOk('BB-NOSAC', { status: 'confirmed' });
    await moveOk('BB-NOSAC', { status: 'processing' });
    const { charges: _charges, ...noCharges } = shipment;
    const refused = expectError(await move('BB-NOSAC', { status: 'shipped', shipment: noCharges }), 422, 'partner_requirements_unmet');
    expect(refused.error).toMatch(/partner BigBox requires SAC in its 810: send shipment.charges/);
    expect(refused.details).toEqual([{ document: '810', segment: 'SAC', needs: 'shipment.charges (freight is code D240)' }]);
    expect(await statusOf('BB-NOSAC')).toBe('processing');
    expect(await sent(orderId, '856')).toEqual([]);

    const sparse = await newPo('SP-810', 'SPARSE', /^(N1\*BT|N3\*PO Box|N4\*Bentonville)/);
    await moveOk('SP-810', { status: 'confirmed' });
    await moveOk('SP-810', { status: 'processing' });
    await moveOk('SP-810', { status: 'shipped', shipment: { carrier: 'FDEG', tracking_number: 'T-1' } });
    await h.gateway.services.ediPartners.setProfile('acme', 'Sparse', { require810: 'N1-BT,CAD' });
    const noBillTo = expectError(await move('SP-810', { status: 'delivered' }), 422, 'partner_requirements_unmet');
    expect(noBillTo.error).toMatch(/requires N1-BT in its 810: send a bill-to: N1\*BT in the partner's 850 or in the partner profile/);
    expect(await statusOf('SP-810')).toBe('shipped');
    expect(await sent(sparse, '810')).toEqual([]);

    await h.gateway.services.ediPartners.setProfile('acme', 'Sparse', { billTo: 'Sparse Payables', billToId: '92/AP-9' });
    await moveOk('SP-810', { status: 'delivered' });
    const [inv] = await sent(sparse, '810');
    expect(inv?.body).toContain('N1*BT*Sparse Payables*92*AP-9');
    // Tracking alone: CAD's reference is the tracking number; no charges, so TDS is the lines alone.
    expect(inv?.body).toContain('CAD****FDEG***CN*T-1');
    expect(inv?.body.some((seg) => seg.startsWith('SAC'))).toBe(false);
    expect(inv?.body).toContain('TDS*43500');
    expect(expectedTdsCents(inv?.body ?? [])).toBe(43500n);
  });

  it('an 855 owed at receipt takes the sender\'s profile when given one, and is held when short of a required segment', async () => {
    const partners = h.gateway.services.ediPartners;
    await partners.create({ org: 'acme', name: 'Receipt', isa: 'ZZ/RECEIPT', vendorNumber: 'V-9', leadDays: '3', require855: 'REF-IA,ACK-068' });
    const db = h.gateway.database.db;
    const row = (name: string) => db.selectFrom('edi_partners').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    const parsed = parseX12(readEdiFixture('po-business-failures.x12').replaceAll('PO-PARTIAL', `PO-RCPT-${String(isa)}`));
    if (!parsed.ok) throw new Error('fixture does not parse');
    const set = parsed.interchange.groups[0]?.transactionSets[0];
    if (set === undefined) throw new Error('no set');
    const take = (name: string) =>
      db.transaction().execute(async (tx) => {
        const partner = await row(name);
        const deps = { orders: h.gateway.services.orders, clock: h.clock };
        const { pos, catalog } = await readPurchaseOrders(tx, deps, { orgId: partner.org_id, qualifiers: ['VP'], sets: [set] });
        const po = pos.get(set);
        if (po === undefined) throw new Error('the PO was not read');
        const outcome = await takePurchaseOrder(tx, deps, { orgId: partner.org_id, qualifiers: ['VP'], po, catalog, gs08: '004010', test: false, partner });
        // Each run makes its order; rolled back so the next may take the same PO.
        throw Object.assign(new Error('rollback'), { outcome });
      }).catch((e: unknown) => (e as { outcome: Awaited<ReturnType<typeof takePurchaseOrder>> }).outcome);

    const taken = await take('Receipt');
    expect(taken.status).toBe('partial');
    const inThreeDays = new Date(h.clock.now().getTime() + 3 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const body = purchaseOrderAck(taken.ack ?? { type: 'RD', poNumber: '', poDate: '', date: '', lines: [] }).map((seg) => seg.join('*').replace(/\*+$/, ''));
    expect(body.slice(1, 4)).toEqual(['REF*IA*V-9', 'N1*ST*Partial Wheels', 'PO1*1*4*EA*89.99**VP*TIRE-225']);
    expect(body.filter((seg) => seg.startsWith('ACK'))).toEqual([`ACK*IA*4*EA*068*${inThreeDays}`, 'ACK*IR*2*EA', 'ACK*IR*1*CA']);

    // BigBox requires the 850's bill-to and buyer in its 855; this PO names neither, so no 855 goes out and the 850 says why.
    const held = await take('BigBox');
    expect(held.ack).toBeUndefined();
    expect(held.detail.errors.at(-1)).toEqual({
      code: 'ack_not_sent',
      message: 'no 855 was sent: partner BigBox requires N1-BT, N1-BY in its 855 and this PO gives no data for them',
    });
  });

  it.each([
    ['a charge code of the wrong shape', [{ type: 'charge', code: 'FREIGHT', amount: '1' }], /SAC02 code/],
    ['an amount in fractions of a cent', [{ type: 'charge', code: 'D240', amount: '1.005' }], /USD amounts have at most 2 decimals, got 1.005/],
    ['an amount of 0', [{ type: 'allowance', code: 'C310', amount: '0.00' }], /amount must be more than 0/],
    ['a negative amount', [{ type: 'allowance', code: 'C310', amount: '-5' }], /amount must not be negative/],
    ['an amount as a JSON number', [{ type: 'charge', code: 'D240', amount: 12.5 }], /amount must be a decimal string such as/],
    ['an unknown charge type', [{ type: 'rebate', code: 'C310', amount: '1' }], /type/],
    ['an empty list', [], /charges must not be empty/],
  ])('refuses shipment charges with %s (400), before anything moves', async (_label, charges, message) => {
    const po = `BB-BAD-${String(isa)}`;
    await newPo(po);
    await moveOk(po, { status: 'confirmed' });
    await moveOk(po, { status: 'processing' });
    const bad = expectError(await move(po, { status: 'shipped', shipment: { ...shipment, charges } }), 400, 'invalid_input');
    expect(JSON.stringify(bad)).toMatch(message);
    expect(await statusOf(po)).toBe('processing');
  });
});

describe.each(dialects)('partner document profiles (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedPartners(h, 'acme');
  });
  afterAll(() => h.close());

  const partners = () => h.gateway.services.ediPartners;
  const refused = async (promise: Promise<unknown>, message: RegExp): Promise<void> => {
    const err = await promise.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_input');
    expect((err as AppError).message).toMatch(message);
  };

  it('keeps what a flag left out does not change, and shows the profile', async () => {
    const first = await partners().setProfile('acme', 'DealerNet', { shipFrom: 'DC 1', terms: '45', packaging: 'PLT94' });
    expect(first.documents).toEqual({ ship_from: { name: 'DC 1' }, terms: { net_days: 45 }, packaging: 'PLT94' });
    const second = await partners().setProfile('acme', 'DealerNet', { require: 'man, td5, MAN' });
    expect(second.documents).toEqual({ ship_from: { name: 'DC 1' }, terms: { net_days: 45 }, packaging: 'PLT94', require: { '856': ['MAN', 'TD5'] } });
    expect((await partners().show('acme', 'DealerNet')).documents).toEqual(second.documents);
  });

  it.each([
    ['an unknown --require code', { require: 'TD1,XYZ' }, /--require takes/],
    ['--require N1-SF without a ship-from', { require: 'N1-SF' }, /N1-SF needs --ship-from/],
    ['--ship-from-id without --ship-from', { shipFromId: '92/WH-1' }, /need --ship-from <name>/],
    ['a --ship-from-id without a qualifier', { shipFrom: 'DC', shipFromId: 'WH-1' }, /--ship-from-id must be/],
    ['a --ship-from-address with too many parts', { shipFrom: 'DC', shipFromAddress: 'a;b;c;d;e;f' }, /--ship-from-address must be/],
    ['--terms that are not days', { terms: 'net 30' }, /--terms must be/],
    ['a --packaging code of the wrong shape', { packaging: 'BOX' }, /--packaging/],
    ['a --remit-to with a delimiter in it', { remitTo: 'Tire*Gateway' }, /--remit-to may hold/],
  ])('refuses %s', async (_label, input, message) => {
    await refused(partners().setProfile('acme', 'BuyerCo', input), message);
  });

  it('takes the profile flags when the partner is created', async () => {
    const created = await partners().create({ org: 'acme', name: 'Retailer', isa: 'ZZ/RETAILER', remitTo: 'Us', remitToId: '1/123456789', require: 'REF-CN' });
    expect(created.documents).toEqual({ remit_to: { name: 'Us', id_qualifier: '1', id: '123456789' }, require: { '856': ['REF-CN'] } });
  });
});

describe('partners CLI: document profile flags', () => {
  const gateway = useInProcessCli('partner-profile');

  it('sets the profile on create, changes it with `partners profile`, shows it, and refuses bad flags', async () => {
    expect((await gateway('orgs', 'create', 'acme')).code).toBe(0);
    const created = await gateway(
      'partners', 'create', '--org', 'acme', '--name', 'BuyerCo', '--isa', 'ZZ/BUYERCO', '--our-isa', 'ZZ/TIREGATEWAY',
      '--ship-from', 'Tire Gateway DC', '--ship-from-id', '92/WH-1', '--require', 'TD5,MAN', '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    expect((JSON.parse(created.stdout) as { documents: unknown }).documents).toEqual({
      ship_from: { name: 'Tire Gateway DC', id_qualifier: '92', id: 'WH-1' },
      require: { '856': ['TD5', 'MAN'] },
    });
    const changed = await gateway('partners', 'profile', 'BuyerCo', '--org', 'acme', '--terms', '2/10/30', '--remit-to', 'Tire Gateway Inc');
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain('terms (810 ITD):  2% 10 days, net 30');
    expect(changed.stdout).toContain('ship-from (856):  Tire Gateway DC | 92/WH-1');
    expect(changed.stdout).toContain('856 requires:     TD5,MAN');
    const bad = await gateway('partners', 'profile', 'BuyerCo', '--org', 'acme', '--require', 'TD9');
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: .*--require takes/) as unknown });
  });

  it('takes the retail flags (vendor number, SCAC, bill-to, lead days, requirements per document, validation) and shows them', async () => {
    const created = await gateway(
      'partners', 'create', '--org', 'acme', '--name', 'BigBox', '--isa', 'ZZ/BIGBOX', '--vendor-number', 'V-12345', '--scac', 'ODFL',
      '--bill-to', 'Big Box AP', '--bill-to-id', '92/AP-1', '--bill-to-address', 'PO Box 500;Bentonville;AR;72712;US', '--lead-days', '2',
      '--require-855', 'ref-ia,ACK-068', '--require-856', 'TD5,PO4', '--require-810', 'REF-IA,CAD', '--validation', 'lenient', '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const view = JSON.parse(created.stdout) as { documents: unknown; validation: string };
    expect(view.documents).toEqual({
      bill_to: { name: 'Big Box AP', id_qualifier: '92', id: 'AP-1', street: ['PO Box 500'], city: 'Bentonville', state: 'AR', postal: '72712', country: 'US' },
      vendor_number: 'V-12345',
      scac: 'ODFL',
      lead_days: 2,
      validation: 'lenient',
      require: { '855': ['REF-IA', 'ACK-068'], '856': ['TD5', 'PO4'], '810': ['REF-IA', 'CAD'] },
    });
    expect(view.validation).toBe('lenient');
    // One document's list changes; the others keep theirs.
    const changed = await gateway('partners', 'profile', 'BigBox', '--org', 'acme', '--require-856', 'MAN', '--validation', 'strict');
    expect(changed.code, changed.stderr).toBe(0);
    for (const line of [
      'bill-to (810):    Big Box AP | 92/AP-1 | PO Box 500, Bentonville, AR, 72712, US',
      'vendor number:    V-12345',
      'default SCAC:     ODFL',
      'lead days (855):  2',
      '855 requires:     REF-IA,ACK-068',
      '856 requires:     MAN',
      '810 requires:     REF-IA,CAD',
      'inbound checks:   strict',
    ]) expect(changed.stdout).toContain(line);
  });

  it.each([
    ['--validation loose', ['--validation', 'loose'], /--validation must be strict or lenient/],
    ['a --scac with a digit', ['--scac', 'UP5'], /--scac must be a SCAC/],
    ['--lead-days past a year', ['--lead-days', '400'], /--lead-days must be a whole number of days from 0 to 365/],
    ['--lead-days that is not a number', ['--lead-days', 'two'], /--lead-days must be/],
    ['a --vendor-number with a space', ['--vendor-number', 'V 1'], /--vendor-number must be/],
    ['an 810 segment the 810 cannot require', ['--require-810', 'TD5'], /--require-810 takes a comma-separated list of N1-BT/],
    ['an 855 segment it does not know', ['--require-855', 'BAK'], /--require-855 takes/],
    ['REF-IA without a vendor number', ['--require-856', 'REF-IA'], /--require-856 REF-IA needs --vendor-number/],
    ['N1-RE without a remit-to', ['--require-810', 'N1-RE'], /--require-810 N1-RE needs --remit-to/],
    ['ITD without terms', ['--require-810', 'ITD'], /--require-810 ITD needs --terms/],
    ['--require and --require-856 together', ['--require', 'TD5', '--require-856', 'MAN'], /--require is the former name of --require-856/],
    ['--bill-to-id without --bill-to', ['--bill-to-id', '92/AP-1'], /need --bill-to <name>/],
  ])('refuses %s with one line and exit code 1, changing nothing', async (_label, flags, message) => {
    // A partner with an empty profile (the first case creates it; the others find it there).
    await gateway('partners', 'create', '--org', 'acme', '--name', 'Plain', '--isa', 'ZZ/PLAIN');
    const before = await gateway('partners', 'show', 'Plain', '--org', 'acme', '--json');
    const bad = await gateway('partners', 'profile', 'Plain', '--org', 'acme', ...flags);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(message) as unknown });
    expect(bad.stderr).toMatch(/^error: [^\n]*\n$/);
    expect((await gateway('partners', 'show', 'Plain', '--org', 'acme', '--json')).stdout).toBe(before.stdout);
  });
});

describe('unitsToDecimal', () => {
  it.each([
    [899_900n, '89.99'],
    [250_125n, '25.0125'],
    [100_000n, '10'],
    [0n, '0'],
    [1n, '0.0001'],
    [9_007_199_254_740_993n, '900719925474.0993'],
  ])('%s units -> %s', (units, text) => {
    expect(unitsToDecimal(units)).toBe(text);
  });
});
