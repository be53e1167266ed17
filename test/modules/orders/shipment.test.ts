import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gs1CheckDigitOk } from '../../../src/modules/orders/orders.schemas.js';
import { clientKinds, listen } from '../../mcp/support/mcp-clients.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { type OrderBody, orderPayload, seedCatalog } from './orders-support.js';

const SSCC = '106141411234567897';
const SSCC_2 = '000614141000000014';

describe.each(dialects)('a shipped move with its shipment (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let n = 0;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write')).key;
  });
  afterAll(() => h.close());

  const patch = (po: string, payload: unknown) => h.request({ method: 'PATCH', url: `/v1/orders/${po}/status`, payload: payload as object, key });
  /** An API order of 4 x TIRE-225 and 2 x Tire-Mud, moved to processing. */
  const processingOrder = async (currency = 'USD'): Promise<string> => {
    n += 1;
    const po = `SHIP-${n}`;
    const lines = [
      { sku: 'TIRE-225', quantity: 4, unit_price: '129.99' },
      { sku: 'Tire-Mud', quantity: 2, unit_price: '210.5' },
    ];
    const created = await h.request({ method: 'POST', url: '/v1/orders', payload: { ...orderPayload(po, lines), currency }, key });
    expect(created.statusCode, created.body).toBe(201);
    for (const status of ['confirmed', 'processing']) expect((await patch(po, { status })).statusCode).toBe(200);
    return po;
  };
  const statusOf = async (po: string): Promise<string> =>
    (await h.request({ method: 'GET', url: `/v1/orders/${po}`, key })).json<{ order: OrderBody }>().order.status;

  const good = {
    carrier: 'UPSN',
    tracking_number: '1Z999AA10123456784',
    bill_of_lading: 'BOL-1',
    weight: { value: 120.25, unit: 'LB' },
    packs: [
      { sscc: SSCC, lines: [{ line_no: 1, quantity: 4 }] },
      { sscc: SSCC_2, lines: [{ line_no: 2, quantity: 2 }] },
    ],
  };

  it('takes a full shipment with the move to shipped', async () => {
    const po = await processingOrder();
    const res = await patch(po, { status: 'shipped', shipment: good });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ order: OrderBody }>().order.status).toBe('shipped');
  });

  it('takes a carrier alone, and no shipment at all', async () => {
    const po = await processingOrder();
    expect((await patch(po, { status: 'shipped', shipment: { carrier: 'FDE' } })).statusCode).toBe(200);
    const other = await processingOrder();
    expect((await patch(other, { status: 'shipped' })).statusCode).toBe(200);
  });

  const bad: [string, unknown, RegExp][] = [
    ['a SCAC in lower case', { ...good, carrier: 'upsn' }, /carrier must be a SCAC/],
    ['a SCAC of 5 letters', { ...good, carrier: 'UPSNX' }, /carrier must be a SCAC/],
    ['a SCAC with a digit', { ...good, carrier: 'UP5' }, /carrier must be a SCAC/],
    ['no carrier', { tracking_number: 'T1' }, /carrier/],
    ['an SSCC with a wrong check digit', { ...good, packs: [{ sscc: '106141411234567890', lines: [{ line_no: 1, quantity: 4 }] }, good.packs[1]] }, /check digit/],
    ['an SSCC of 17 digits', { ...good, packs: [{ sscc: '10614141123456789', lines: [{ line_no: 1, quantity: 4 }] }, good.packs[1]] }, /18 digits/],
    ['an SSCC with the (00) identifier', { ...good, packs: [{ sscc: `00${SSCC}`, lines: [{ line_no: 1, quantity: 4 }] }, good.packs[1]] }, /18 digits/],
    ['two packs with one SSCC', { ...good, packs: [good.packs[0], { ...good.packs[1], sscc: SSCC }] }, /share an sscc/],
    ['a line twice in one pack', { ...good, packs: [{ sscc: SSCC, lines: [{ line_no: 1, quantity: 2 }, { line_no: 1, quantity: 2 }] }, good.packs[1]] }, /line_no twice/],
    ['an empty pack list', { ...good, packs: [] }, /packs must not be empty/],
    ['a pack without lines', { ...good, packs: [{ sscc: SSCC, lines: [] }] }, /at least one line/],
    ['packs short of a line', { ...good, packs: [{ sscc: SSCC, lines: [{ line_no: 1, quantity: 3 }] }, good.packs[1]] }, /line 1: 4 ordered, 3 packed/],
    ['packs holding more than ordered', { ...good, packs: [{ sscc: SSCC, lines: [{ line_no: 1, quantity: 5 }] }, good.packs[1]] }, /line 1: 4 ordered, 5 packed/],
    ['packs leaving a line out', { ...good, packs: [good.packs[0]] }, /line 2: 2 ordered, 0 packed/],
    ['a pack naming a line the order lacks', { ...good, packs: [...good.packs, { sscc: '000614141000000021', lines: [{ line_no: 9, quantity: 1 }] }] }, /has no line 9/],
    ['a fractional pack quantity', { ...good, packs: [{ sscc: SSCC, lines: [{ line_no: 1, quantity: 3.5 }] }, good.packs[1]] }, /whole number/],
    ['a weight of 0', { ...good, weight: { value: 0, unit: 'LB' } }, /weight must be positive/],
    ['a weight with 4 decimals', { ...good, weight: { value: 1.2345, unit: 'LB' } }, /3 decimals/],
    ['a weight in ounces', { ...good, weight: { value: 1, unit: 'OZ' } }, /unit/],
    ['a tracking number with a space', { ...good, tracking_number: '1Z 999' }, /tracking_number must not contain whitespace/],
    ['a bill of lading over 30 characters', { ...good, bill_of_lading: 'B'.repeat(31) }, /bill_of_lading must be at most 30/],
    ['an unknown field', { ...good, pro_number: '1' }, /pro_number/],
    ['an unknown field in a pack', { ...good, packs: [{ ...good.packs[0], label: 'x' }, good.packs[1]] }, /label/],
  ];
  it.each(bad)('400 for %s, and the order stays where it was', async (_label, shipment, message) => {
    const po = await processingOrder();
    const body = expectError(await patch(po, { status: 'shipped', shipment }), 400, 'invalid_input');
    expect(`${String(body.error)} ${JSON.stringify(body.details)}`).toMatch(message);
    expect(await statusOf(po)).toBe('processing');
  });

  it.each(['confirmed', 'processing', 'cancelled', 'delivered'])('400 for a shipment with a move to %s', async (status) => {
    const po = await processingOrder();
    const body = expectError(await patch(po, { status, shipment: { carrier: 'UPSN' } }), 400, 'invalid_input');
    expect(body.error).toContain(`only a move to shipped carries a shipment, not one to ${status}`);
    expect(await statusOf(po)).toBe('processing');
  });

  it('names each packing problem in details', async () => {
    const po = await processingOrder();
    const shipment = { carrier: 'UPSN', packs: [{ sscc: SSCC, lines: [{ line_no: 1, quantity: 1 }, { line_no: 7, quantity: 1 }] }] };
    const body = expectError(await patch(po, { status: 'shipped', shipment }), 400, 'invalid_input');
    expect(body.details).toEqual([
      { path: 'shipment.packs.0.lines.1.line_no', message: 'the order has no line 7' },
      { path: 'shipment.packs', message: 'line 1: 4 ordered, 1 packed' },
      { path: 'shipment.packs', message: 'line 2: 2 ordered, 0 packed' },
    ]);
  });

  it("takes charges in the order's currency digits: JPY whole amounts, KWD three decimals", async () => {
    const jpy = await processingOrder('JPY');
    const fractional = { carrier: 'UPSN', charges: [{ type: 'charge', code: 'D240', amount: '1500' }, { type: 'allowance', code: 'C310', amount: '12.5' }] };
    const body = expectError(await patch(jpy, { status: 'shipped', shipment: fractional }), 400, 'invalid_input');
    expect(body.details).toEqual([{ path: 'shipment.charges.1.amount', message: 'JPY amounts have no decimals, got 12.5' }]);
    expect(await statusOf(jpy)).toBe('processing');
    const whole = { carrier: 'UPSN', charges: [{ type: 'charge', code: 'D240', amount: '1500' }] };
    expect((await patch(jpy, { status: 'shipped', shipment: whole })).statusCode).toBe(200);
    const kwd = await processingOrder('KWD');
    const fils = { carrier: 'UPSN', charges: [{ type: 'charge', code: 'D240', amount: '1.125' }] };
    expect((await patch(kwd, { status: 'shipped', shipment: fils })).statusCode).toBe(200);
    const tooFine = await processingOrder('KWD');
    expectError(await patch(tooFine, { status: 'shipped', shipment: { carrier: 'UPSN', charges: [{ type: 'charge', code: 'D240', amount: '1.1255' }] } }), 400, 'invalid_input');
  });

  it('refuses the same bad shipment through MCP with the same details', async () => {
    const po = await processingOrder();
    const shipment = { carrier: 'UPSN', packs: [{ sscc: '106141411234567890', lines: [{ line_no: 1, quantity: 4 }, { line_no: 2, quantity: 2 }] }] };
    const rest = expectError(await patch(po, { status: 'shipped', shipment }), 400, 'invalid_input');
    const kind = clientKinds[0];
    if (!kind) throw new Error('no MCP client kind');
    const client = await kind.connect(await listen(h), key);
    try {
      const out = await client.call('orders_set_status', { id_or_po_number: po, status: 'shipped', shipment });
      expect(out.isError).toBe(true);
      expect(out.structuredContent).toMatchObject({ code: 'invalid_input', status: 400, details: rest.details });
    } finally {
      await client.close();
    }
  });
});

describe('GS1 mod-10 check digits', () => {
  it.each([
    ['106141411234567897', true],
    ['000614141000000014', true],
    ['106141411234567890', false],
    ['000614141000000015', false],
    // Check digit 0: the weighted sum is already a multiple of 10.
    ['000000000000000000', true],
  ])('%s -> %s', (sscc, ok) => {
    expect(gs1CheckDigitOk(sscc)).toBe(ok);
  });
});
