import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unitsToDecimal } from '../../../../src/modules/edi/messages/status-documents.js';
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
        x12: (await h.request({ method: 'GET', url: `/v1/edi/messages/${summary.id}`, key })).json<{ message: { x12: string } }>().message.x12,
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
    const bare = expectError(await move('RT-REQ', { status: 'shipped' }), 422, 'unprocessable');
    expect(bare.error).toMatch(/BuyerCo requires TD1, TD5, REF-BM, MAN/);
    expect((bare.details as { segment: string }[]).map((d) => d.segment)).toEqual(['TD1', 'TD5', 'REF-BM', 'MAN']);
    const partial = expectError(await move('RT-REQ', { status: 'shipped', shipment: { carrier: 'UPSN', bill_of_lading: 'B1' } }), 422, 'unprocessable');
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
