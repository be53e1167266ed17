import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness } from '../../../support/harness.js';
import type { OrderBody } from '../../orders/orders-support.js';
import { inline850 } from '../x12/x12.fixtures.js';
import { buyerInterchange, startEdiHarness, submit, type SubmitBody } from '../edi-support.js';

describe.each(dialects)('850 lines judged by the orders service (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let control = 7100;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  /** Submits one 850 with these PO1 lines (each "PO102*PO103*PO104**VP*SKU"); every call gets its own ISA control number. */
  const submit850 = (po: string, lines: readonly string[]) => {
    control += 1;
    const body = [`BEG*00*SA*${po}**20240115`, 'N1*ST*Verdict Wheels', ...lines.map((l, i) => `PO1*${i + 1}*${l}`)];
    return submit(h, key, inline850(body).replaceAll('000000101', String(control).padStart(9, '0')));
  };
  const send = async (po: string, lines: readonly string[]): Promise<NonNullable<SubmitBody['documents'][number]>> => {
    const res = await submit850(po, lines);
    expect(res.statusCode, res.body).toBe(200);
    const document = res.json<SubmitBody>().documents[0];
    if (document === undefined) throw new Error('no document');
    return document;
  };
  const order = async (po: string): Promise<OrderBody> => {
    const res = await h.request({ method: 'GET', url: `/v1/orders/${po}`, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ order: OrderBody }>().order;
  };
  const errorsOf = (document: NonNullable<SubmitBody['documents'][number]>) => document.errors?.map((e) => [e.line ?? '-', e.code]);

  it('takes a 4-decimal PO104 to the order exactly', async () => {
    const document = await send('PO-LV-EXACT', ['4*EA*129.9999**VP*TIRE-225']);
    expect(document.status).toBe('accepted');
    expect(document.errors ?? []).toEqual([]);
    const [line] = (await order('PO-LV-EXACT')).lines;
    expect(line).toMatchObject({ sku: 'TIRE-225', quantity: 4, currency: 'USD', unit_price: '129.9999', line_total: '520.00' });
  });

  it("reads X12 R forms ('.5', '5.', '0012.50', quantity '2.0') without a float", async () => {
    const document = await send('PO-LV-RFORMS', ['1*EA*.5**VP*TIRE-225', '1*EA*5.**VP*VALVE-KIT', '2.0*EA*0012.50**VP*LUG-NUT']);
    expect(document.status).toBe('accepted');
    expect((await order('PO-LV-RFORMS')).lines.map((l) => [l.quantity, l.unit_price])).toEqual([[1, '0.5000'], [1, '5.0000'], [2, '12.5000']]);
  });

  it('refuses a price with 5 decimals and a fractional quantity, line by line', async () => {
    const document = await send('PO-LV-BAD', ['1*EA*10**VP*TIRE-225', '1*EA*1.23456**VP*TIRE-225', '1.5*EA*1**VP*TIRE-225']);
    expect(document.status).toBe('partial');
    expect(errorsOf(document)).toEqual([['2', 'invalid_price'], ['3', 'invalid_quantity']]);
    expect(document.errors?.every((e) => e.message.startsWith(`line ${e.line ?? ''}: `))).toBe(true);
    expect((await order('PO-LV-BAD')).lines.map((l) => l.unit_price)).toEqual(['10.0000']);
  });

  it('refuses an exponent as price or quantity: the 997 rejects the set, no order is made', async () => {
    const details = expectError(await submit850('PO-LV-EXP', ['1*EA*1e2**VP*TIRE-225', '1e3*EA*1**VP*TIRE-225']), 422, 'interchange_rejected').details as SubmitBody;
    expect(details.documents[0]?.errors?.map((e) => [e.code, e.segment_id, e.element])).toEqual([
      ['AK403:6', 'PO1', 4],
      ['AK403:6', 'PO1', 2],
    ]);
    expectError(await h.request({ method: 'GET', url: '/v1/orders/PO-LV-EXP', key }), 404, 'not_found');
  });

  it("applies the order's ranges to read values: a quantity or price out of range is that line's problem", async () => {
    const document = await send('PO-LV-RANGE', ['1*EA*10**VP*TIRE-225', '2000000*EA*10**VP*VALVE-KIT', '1*EA*1000000.0001**VP*LUG-NUT', '0*EA*1**VP*LUG-NUT']);
    expect(document.status).toBe('partial');
    expect(errorsOf(document)).toEqual([['2', 'invalid_quantity'], ['3', 'invalid_price'], ['4', 'invalid_quantity']]);
  });

  it('refuses an unknown and an inactive SKU per line; the other lines make a partial order', async () => {
    const document = await send('PO-LV-SKUS', ['2*EA*89.99**VP*TIRE-225', '1*EA*5**VP*NO-SUCH-SKU', '1*EA*5**VP*OLD-1', '3*EA*25.0125**VP*valve-kit']);
    expect(document).toMatchObject({ status: 'partial', order_id: expect.stringMatching(/^ord_/) as unknown });
    expect(errorsOf(document)).toEqual([['2', 'unknown_sku'], ['3', 'inactive_sku']]);
    const made = await order('PO-LV-SKUS');
    expect(made.lines.map((l) => [l.line_no, l.sku, l.quantity, l.unit_price])).toEqual([
      [1, 'TIRE-225', 2, '89.9900'],
      [2, 'VALVE-KIT', 3, '25.0125'],
    ]);
    expect(made.totals.subtotal).toBe('255.02');
  });

  it('judges a PO naming more distinct SKUs than one catalog statement takes: known ones found in every piece', async () => {
    // 150 distinct SKUs (the catalog reads 64 a statement); the known ones first, in the middle and last.
    const skus = Array.from({ length: 150 }, (_, i) => `UNKNOWN-${i}`);
    skus[0] = 'TIRE-225';
    skus[70] = 'valve-kit';
    skus[149] = 'LUG-NUT';
    const document = await send('PO-LV-MANY', skus.map((sku) => `1*EA*2**VP*${sku}`));
    expect(document.status).toBe('partial');
    const refused = errorsOf(document) ?? [];
    expect(refused).toHaveLength(147);
    expect(refused.every(([, code]) => code === 'unknown_sku')).toBe(true);
    expect((await order('PO-LV-MANY')).lines.map((l) => l.sku)).toEqual(['TIRE-225', 'VALVE-KIT', 'LUG-NUT']);
  });

  it('reads the catalog once per 850, for every line together', async () => {
    const reads = vi.spyOn(h.gateway.services.products, 'catalogOf');
    try {
      expect((await send('PO-LV-ONCE', ['1*EA*1**VP*TIRE-225', '1*EA*1**VP*VALVE-KIT', '1*EA*1**VP*NO-SUCH-SKU'])).status).toBe('partial');
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it('reads the catalog once for the 850s of a slice, and judges each PO by its own lines', async () => {
    const set = (control: string, po: string, lines: readonly string[]) => {
      const body = [`BEG*00*SA*${po}**20240115`, 'N1*ST*Verdict Wheels', ...lines.map((l, i) => `PO1*${i + 1}*${l}`), `CTT*${lines.length}`];
      return [`ST*850*${control}`, ...body, `SE*${body.length + 2}*${control}`];
    };
    const sets = [
      set('0001', 'PO-LV-SLICE-1', ['2*EA*89.99**VP*TIRE-225', '1*EA*5**VP*VALVE-KIT']),
      set('0002', 'PO-LV-SLICE-2', ['1*EA*5**VP*NO-SUCH-SKU', '1*EA*5**VP*OLD-1']),
      set('0003', 'PO-LV-SLICE-3', ['1*EA*5**VP*NO-SUCH-SKU', '3*EA*1**VP*tire-225']),
    ];
    control += 1;
    const reads = vi.spyOn(h.gateway.services.products, 'catalogOf');
    try {
      const res = await submit(h, key, buyerInterchange(control, [{ control: '1', sets }]));
      expect(res.statusCode, res.body).toBe(200);
      const documents = res.json<SubmitBody>().documents;
      expect(documents.map((d) => [d.po_number, d.status])).toEqual([
        ['PO-LV-SLICE-1', 'accepted'],
        ['PO-LV-SLICE-2', 'rejected'],
        ['PO-LV-SLICE-3', 'partial'],
      ]);
      expect(documents.map(errorsOf)).toEqual([undefined, [['-', 'no_lines'], ['1', 'unknown_sku'], ['2', 'inactive_sku']], [['1', 'unknown_sku']]]);
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
    expect((await order('PO-LV-SLICE-1')).lines.map((l) => [l.sku, l.quantity])).toEqual([['TIRE-225', 2], ['VALVE-KIT', 1]]);
    expect((await order('PO-LV-SLICE-3')).lines.map((l) => [l.sku, l.quantity])).toEqual([['TIRE-225', 3]]);
    expectError(await h.request({ method: 'GET', url: '/v1/orders/PO-LV-SLICE-2', key }), 404, 'not_found');
  });
});
