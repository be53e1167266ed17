import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, itChecksAuth } from '../../../support/auth-checks.js';
import { dialects, type Harness } from '../../../support/harness.js';
import type { OrderBody } from '../../orders/orders-support.js';
import { readRaw } from '../../../../src/modules/edi/messages/messages.repository.js';
import { readFixture } from '../x12/x12.fixtures.js';
import { type EdiErrorBody, readBack, readEdiFixture, replySet, seedEdiCatalog, seedPartners, startEdiHarness, submit, type SubmitBody, submitOk } from '../edi-support.js';

interface MessageBody {
  id: string;
  direction: string;
  type: string | null;
  status: string;
  partner: { id: string; name: string } | null;
  control_number: string | null;
  size: number;
  sha256: string;
  related_message_id: string | null;
  order_id: string | null;
  documents: SubmitBody['documents'];
  errors: EdiErrorBody[];
  x12: string;
}

type Unprocessable = SubmitBody & { errors: EdiErrorBody[] };

describe.each(dialects)('POST /v1/edi (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const ok = (body: string | Buffer): Promise<SubmitBody> => submitOk(h, key, body);
  const unprocessable = async (body: string, code = 'interchange_rejected'): Promise<Unprocessable> => {
    const res = await submit(h, key, body);
    const error = expectError(res, 422, code);
    return error.details as Unprocessable;
  };
  const ack = (result: SubmitBody, i = 0) => ({ interchange: readBack(result.reply?.x12 ?? '').interchange, body: replySet(result, i) });
  const order = async (po: string): Promise<OrderBody> => {
    const res = await h.request({ method: 'GET', url: `/v1/orders/${po}`, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ order: OrderBody }>().order;
  };
  const message = async (id: string): Promise<MessageBody> => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages/${id}?include=raw`, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ message: MessageBody }>().message;
  };
  const storedRow = (id: string) => h.gateway.database.db.selectFrom('edi_messages').select(['id', 'org_id', 'raw', 'size']).where('id', '=', id).executeTakeFirstOrThrow();
  const orderCount = async (): Promise<number> =>
    Number((await h.gateway.database.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  /** Replaces a fixed-width ISA field's value, keeping the ISA 106 characters long. */
  const withIsa = (x12: string, from: string, to: string): string => x12.replace(from, to.padEnd(from.length, ' '));

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'POST', url: '/v1/edi', scope: 'edi:write', payload: readEdiFixture('po-4010-single.x12'), headers: { 'content-type': 'text/plain' } });

    it('stores nothing for a key without edi:write', async () => {
      const reader = (await h.key('acme', 'edi:read')).key;
      const before = (await h.gateway.database.db.selectFrom('edi_messages').select('id').execute()).length;
      expectError(await submit(h, reader, readEdiFixture('po-4010-single.x12')), 403, 'missing_scope');
      expect((await h.gateway.database.db.selectFrom('edi_messages').select('id').execute()).length).toBe(before);
    });
  });

  describe('850 -> orders', () => {
    it('takes a 004010 850 with CRLF line ends: order, 997 and the stored message', async () => {
      const text = readEdiFixture('po-4010-single.x12');
      const result = await ok(text);
      expect(result.partner.name).toBe('BuyerCo');
      expect(result.documents).toEqual([{ type: '850', control_number: '0001', status: 'accepted', po_number: 'PO-1001', order_id: expect.stringMatching(/^ord_/) as unknown }]);
      expect(result.acknowledgments.map((a) => [a.group, a.code])).toEqual([['101', 'A']]);
      const { interchange, body } = ack(result);
      expect(body).toEqual(['AK1*PO*101', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
      expect(interchange).toMatchObject({ senderQualifier: 'ZZ', senderId: 'TIREGATEWAY', receiverQualifier: 'ZZ', receiverId: 'BUYERCO', version: '00401', usage: 'P' });
      expect(interchange.groups[0]?.gs.slice(0, 3)).toEqual(['FA', 'TIREGW', 'BUYERCO']);

      const created = await order('PO-1001');
      expect(created).toMatchObject({
        id: result.documents[0]?.order_id,
        source: 'edi',
        status: 'submitted',
        ship_to: 'ISAAC TIRE AND WHEEL\nReceiving Dock B\n100 Main St Suite 5\nSpringfield, IL 62701 US',
        notes: 'Deliver to the back door\nISAAC said ISA is not a segment here',
      });
      expect(created.lines.map((l) => [l.sku, l.quantity, l.unit_price])).toEqual([['TIRE-225', 4, '89.9900'], ['VALVE-KIT', 1, '25.0125']]);

      const stored = await message(result.message_id);
      expect(stored).toMatchObject({ direction: 'inbound', type: '850', status: 'accepted', control_number: '000000101', partner: result.partner, errors: [] });
      expect(stored.x12).toBe(text);
      expect(stored.size).toBe(Buffer.byteLength(text, 'latin1'));
      expect(stored.sha256).toBe(createHash('sha256').update(text, 'latin1').digest('hex'));
      const reply = await message(result.reply?.message_id ?? '');
      expect(reply).toMatchObject({ direction: 'outbound', type: '997', status: 'generated', related_message_id: result.message_id, delivery: null });
      expect(reply.x12).toBe(result.reply?.x12);
    });

    it('takes a 005010 interchange of three sets, answering in 005010 and reading the SKU by the partner\'s qualifier order', async () => {
      const result = await ok(readEdiFixture('po-5010-multi.x12'));
      expect(result.documents.map((d) => [d.control_number, d.status, d.po_number])).toEqual([
        ['1001', 'accepted', 'DN-77'],
        ['1002', 'accepted', 'DN-78'],
        ['1003', 'accepted', 'DN-79'],
      ]);
      const { interchange, body } = ack(result);
      expect(body).toEqual(['AK1*PO*202*005010', 'AK2*850*1001*005010', 'AK5*A', 'AK2*850*1002*005010', 'AK5*A', 'AK2*850*1003*005010', 'AK5*A', 'AK9*A*3*3*3']);
      expect(interchange).toMatchObject({ version: '00501', receiverQualifier: '01', receiverId: '123456789' });
      expect(interchange.groups[0]?.version).toBe('005010');
      const dn78 = await order('DN-78');
      expect(dn78.ship_to).toBe('D-10');
      expect(dn78.lines.map((l) => [l.sku, l.quantity, l.unit_price])).toEqual([['TPMS-SENSOR', 2, '15.0000'], ['LUG-NUT', 16, '4.2500']]);
      expect((await order('DN-77')).ship_to).toBe('Dealer Net Central\n1 Depot Rd\nColumbus, OH 43004');
      expect((await order('DN-79')).lines[0]).toMatchObject({ sku: 'VALVE-KIT', unit_price: '0.0000' });
    });

    it('reads newline as the segment terminator', async () => {
      const result = await ok(readEdiFixture('po-newline-terminator.x12'));
      expect(result.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-404' });
      expect(ack(result).body).toEqual(['AK1*PO*404', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
    });

    it('reads ~ as element separator and * as segment terminator', async () => {
      const result = await ok(readEdiFixture('po-unusual-delimiters.x12'));
      expect(result.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-505' });
      expect(ack(result).body).toEqual(['AK1*PO*505', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
      expect((await order('PO-505')).lines[0]).toMatchObject({ sku: 'TIRE-225', quantity: 2 });
    });

    it('takes a body with a BOM and leading whitespace, sent as application/edi-x12', async () => {
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000102').replace('PO-1001', 'PO-1002');
      const res = await submit(h, key, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`\r\n  ${text}`, 'latin1')]), 'application/edi-x12');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<SubmitBody>().documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-1002' });
    });

    it('checks and acknowledges a test interchange (ISA15 T) but makes no order', async () => {
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000103').replace('*0*P*>', '*0*T*>').replace('PO-1001', 'PO-1003');
      const result = await ok(text);
      expect(result.documents[0]).toMatchObject({ status: 'test', po_number: 'PO-1003' });
      expect(result.documents[0]?.errors?.map((e) => e.code)).toEqual(['test_interchange']);
      const { interchange, body } = ack(result);
      expect(interchange.usage).toBe('T');
      expect(body).toEqual(['AK1*PO*101', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
      expectError(await h.request({ method: 'GET', url: '/v1/orders/PO-1003', key }), 404);
    });

    it('acknowledges every PO group, records an inbound 997 group without acknowledging it', async () => {
      const result = await ok(readFixture('850-multi-group.x12'));
      expect(result.acknowledgments.map((a) => [a.group, a.code])).toEqual([['31', 'A'], ['32', 'A']]);
      expect(ack(result, 0).body).toEqual(['AK1*PO*31', 'AK2*850*0001', 'AK5*A', 'AK2*850*0002', 'AK5*A', 'AK9*A*2*2*2']);
      expect(ack(result, 1).body).toEqual(['AK1*PO*32', 'AK2*850*0003', 'AK5*A', 'AK9*A*1*1*1']);
      // Its 850s have no ship-to: accepted by the 997, refused as orders.
      expect(result.documents.map((d) => [d.type, d.status, d.errors?.[0]?.code])).toEqual([
        ['850', 'rejected', 'no_ship_to'],
        ['850', 'rejected', 'no_ship_to'],
        ['850', 'rejected', 'no_ship_to'],
        ['997', 'received', undefined],
      ]);
      expect((await message(result.message_id)).type).toBe('850,997');
    });
  });

  describe('a bounded answer: at most 1,000 findings in all, the rest counted and kept on the message', () => {
    it('a PO of 33,000 unknown-SKU lines (more than SQLite binds in one statement) answers 1,000 of its findings and says where the rest are', async () => {
      const lines = Array.from({ length: 33_000 }, (_, i) => `PO1*${i + 1}*1*EA*5**VP*NO-SUCH-${i}~`);
      const text = [
        'ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *260601*1200*U*00401*000004343*0*P*>~',
        'GS*PO*BUYERCO*TIREGW*20260601*1200*4343*X*004010~',
        'ST*850*0001~',
        'BEG*00*SA*PO-BIG-1212**20260601~',
        'N1*ST*Big Store*92*STORE1~',
        ...lines,
        `CTT*33000~`,
        `SE*${lines.length + 5}*0001~`,
        'GE*1*4343~',
        'IEA*1*000004343~',
      ].join('\n');
      const result = await ok(text);
      const [document] = result.documents;
      expect(document).toMatchObject({ status: 'rejected', po_number: 'PO-BIG-1212' });
      expect(document?.errors).toHaveLength(1000);
      expect(result.omitted).toEqual({ message_id: result.message_id, documents: 0, acknowledgments: 0, findings: 33_001 - 1000 });
      // The stored message has every finding of the document.
      const stored = await message(result.message_id);
      expect((stored.documents as { errors?: unknown[] }[])[0]?.errors).toHaveLength(33_001);
    });
  });

  describe('business failures: the 997 accepts, the document says why, an 855 goes out', () => {
    it('takes what it can of a PO (partial) and refuses a PO with nothing orderable', async () => {
      const before = await orderCount();
      const result = await ok(readEdiFixture('po-business-failures.x12'));
      expect(ack(result).body).toEqual(['AK1*PO*606', 'AK2*850*0001', 'AK5*A', 'AK2*850*0002', 'AK5*A', 'AK9*A*2*2*2']);
      const [partial, nothing] = result.documents;
      expect(partial).toMatchObject({ status: 'partial', po_number: 'PO-PARTIAL', order_id: expect.stringMatching(/^ord_/) as unknown });
      expect(partial?.errors?.map((e) => [e.line, e.code])).toEqual([['2', 'unknown_sku'], ['3', 'unsupported_unit']]);
      expect(nothing).toMatchObject({ status: 'rejected', po_number: 'PO-NOTHING' });
      expect(nothing?.order_id).toBeUndefined();
      expect(nothing?.errors?.map((e) => [e.line ?? '-', e.code])).toEqual([['-', 'no_lines'], ['1', 'unknown_sku'], ['2', 'unknown_sku'], ['3', 'inactive_sku']]);
      expect(await orderCount()).toBe(before + 1);
      expect((await order('PO-PARTIAL')).lines.map((l) => l.sku)).toEqual(['TIRE-225']);

      const list = await h.request({ method: 'GET', url: '/v1/edi/messages?direction=outbound&type=855', key });
      const sent = list.json<{ messages: { id: string; related_message_id: string }[] }>().messages.filter((m) => m.related_message_id === result.message_id);
      expect(sent).toHaveLength(2);
      const bodies = await Promise.all(sent.map(async (m) => readBack((await message(m.id)).x12).body));
      const today = () => h.clock.now().toISOString().slice(0, 10).replaceAll('-', '');
      const partialAck = bodies.find((b) => b[0]?.startsWith('BAK*00*AC*'));
      expect(partialAck).toEqual([
        // BAK09: acknowledged the day it came in; the 850's ship-to echoed.
        `BAK*00*AC*PO-PARTIAL*20260601****${partial?.order_id ?? ''}*${today()}`,
        'N1*ST*Partial Wheels',
        'PO1*1*4*EA*89.99**VP*TIRE-225',
        'ACK*IA*4*EA',
        'PO1*2*2*EA*10**VP*NO-SUCH-SKU',
        'ACK*IR*2*EA',
        'PO1*3*1*CA*10**VP*VALVE-KIT',
        'ACK*IR*1*CA',
        'CTT*3',
      ]);
      expect(bodies.find((b) => b[0]?.startsWith('BAK*00*RD*'))).toEqual([
        `BAK*00*RD*PO-NOTHING*20260601*****${today()}`,
        'N1*ST*Nothing Wheels',
        'PO1*1*1*EA*5**VP*NO-SUCH-SKU',
        'ACK*IR*1*EA',
        'PO1*2*1*EA*5**UP*012345678905',
        'ACK*IR*1*EA',
        'PO1*3*1*EA*5**VP*OLD-1',
        'ACK*IR*1*EA',
        'CTT*3',
      ]);
    });

    it('refuses a PO number that already exists', async () => {
      await order('PO-1001');
      const result = await ok(readEdiFixture('po-duplicate-po.x12'));
      expect(ack(result).body).toEqual(['AK1*PO*707', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
      expect(result.documents[0]).toMatchObject({ status: 'rejected', po_number: 'PO-1001' });
      expect(result.documents[0]?.errors?.[0]).toMatchObject({ code: 'duplicate_po' });
      expect((await order('PO-1001')).ship_to).not.toContain('Second Try');
    });
  });

  describe('X12 errors: where and what, and the 997 still generated; 422 only when no set was accepted', () => {
    it('wrong SE count: that set is rejected (AK5 R 4), the other one is taken: 200, partial, with the findings', async () => {
      const details = await ok(readEdiFixture('se-count-wrong.x12'));
      expect(details.status).toBe('partial');
      expect(details.errors).toEqual([
        expect.objectContaining({ code: 'AK502:4', position: 7, segment_id: 'SE', element: 1, group_control: '808', set_control: '0001' }),
      ]);
      expect(ack(details).body).toEqual(['AK1*PO*808', 'AK2*850*0001', 'AK5*R*4', 'AK2*850*0002', 'AK5*A', 'AK9*P*2*2*1']);
      expect(details.documents.map((d) => [d.control_number, d.status, d.po_number])).toEqual([['0001', 'rejected', 'PO-808'], ['0002', 'accepted', 'PO-809']]);
      expectError(await h.request({ method: 'GET', url: '/v1/orders/PO-808', key }), 404);
      await order('PO-809');
      expect((await message(details.message_id)).status).toBe('partial');
    });

    it('wrong GE and IEA counts: the interchange is rejected whole and its group gets AK9 R', async () => {
      const before = await orderCount();
      const details = await unprocessable(readEdiFixture('ge-iea-counts-wrong.x12'));
      expect(details.errors.map((e) => [e.code, e.segment_id, e.element, e.position])).toEqual([
        ['AK905:5', 'GE', 1, 8],
        ['TA105:021', 'IEA', 1, 9],
        ['interchange_rejected', 'GS', undefined, 2],
      ]);
      expect(ack(details).body).toEqual(['AK1*PO*909', 'AK2*850*0001', 'AK5*R', 'AK9*R*3*1*0*5*1']);
      expect(details.documents).toMatchObject([{ status: 'rejected', po_number: 'PO-909' }]);
      expect(await orderCount()).toBe(before);
      expect((await message(details.message_id)).status).toBe('rejected');
    });

    it('missing BEG: AK3 mandatory segment missing', async () => {
      const details = await unprocessable(readEdiFixture('missing-beg.x12'));
      expect(details.errors).toEqual([expect.objectContaining({ code: 'AK304:3', segment_id: 'BEG', position: 4, set_control: '0001' })]);
      expect(ack(details).body).toEqual(['AK1*PO*1010', 'AK2*850*0001', 'AK3*BEG*2**3', 'AK5*R*5', 'AK9*R*1*1*0']);
    });

    it('unknown segment and a bad date: AK3 unrecognized, AK4 invalid date', async () => {
      const details = await unprocessable(readEdiFixture('unknown-segment.x12'));
      expect(details.errors.map((e) => [e.code, e.segment_id, e.position, e.element])).toEqual([
        ['AK403:8', 'BEG', 4, 5],
        ['AK304:1', 'ZZZ', 5, undefined],
      ]);
      expect(ack(details).body).toEqual(['AK1*PO*1111', 'AK2*850*0001', 'AK3*BEG*2**8', 'AK4*5*373*8*20260231', 'AK3*ZZZ*3**1', 'AK5*R*5', 'AK9*R*1*1*0']);
    });

    it('an unsupported transaction set is rejected in the 997 (AK5 R 1)', async () => {
      const text = readEdiFixture('po-newline-terminator.x12').replaceAll('000000404', '000000414').replace('ST*850*0001', 'ST*860*0001');
      const details = await unprocessable(text);
      expect(details.errors).toEqual([expect.objectContaining({ code: 'AK502:1', segment_id: 'ST', element: 1, value: '860' })]);
      expect(ack(details).body).toEqual(['AK1*PO*404', 'AK2*860*0001', 'AK5*R*1', 'AK9*R*1*1*0']);
    });

    it('an unreadable ISA: 422 naming it, no 997', async () => {
      const details = await unprocessable('ISA*00*          *00*    ', 'interchange_invalid');
      expect(details.errors[0]).toMatchObject({ code: 'TA105:023', segment_id: 'ISA', position: 1 });
      expect(details.acknowledgments).toBeUndefined();
      expect((await message(details.message_id)).status).toBe('rejected');
    });
  });

  describe('not X12: 400 invalid_input, and the body is still kept', () => {
    it.each([
      ['plain text', 'hello partner'],
      ['a JSON document as text', '{"po_number":"PO-1"}'],
      ['text that starts with ISA', 'ISAAC sent this by mistake'],
    ])('%s', async (_label, body) => {
      const res = await submit(h, key, body);
      const error = expectError(res, 400, 'invalid_input');
      const id = (error.details as { message_id: string }).message_id;
      expect(error.error).toMatch(/^not an X12 interchange: /);
      expect(error.error).toContain(`kept as message ${id}`);
      expect((error.details as { errors: EdiErrorBody[] }).errors[0]).toMatchObject({ code: 'not_x12', position: 1 });
      const stored = await message(id);
      expect(stored).toMatchObject({ status: 'not_x12', x12: body, size: body.length, partner: null, type: null });
    });

    it('an empty body: 400 before anything is stored', async () => {
      const before = (await h.gateway.database.db.selectFrom('edi_messages').select('id').execute()).length;
      const error = expectError(await submit(h, key, ''), 400, 'invalid_input');
      expect(error.error).toBe('send the x12 as the request body');
      expect((await h.gateway.database.db.selectFrom('edi_messages').select('id').execute()).length).toBe(before);
    });

    it('keeps bytes that are not UTF-8 exactly', async () => {
      const raw = Buffer.from([0x00, 0xff, 0xfe, 0x41]);
      const error = expectError(await submit(h, key, raw), 400, 'invalid_input');
      const row = await storedRow((error.details as { message_id: string }).message_id);
      expect(Buffer.compare(await readRaw(h.gateway.database.db, row.org_id, row.id), raw)).toBe(0);
      expect(Number(row.size)).toBe(4);
    });

    it('keeps a body of many chunks byte for byte, its bytes outside the message row', async () => {
      // Not UTF-8 (0xff here and there) and over 64 KB, so it spans chunk rows and reads back as Latin-1.
      const raw = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i % 1000 === 999 ? 0xff : 0x41 + (i % 26))));
      const error = expectError(await submit(h, key, raw), 400, 'invalid_input');
      const id = (error.details as { message_id: string }).message_id;
      const row = await storedRow(id);
      expect(row.raw.length).toBe(0);
      expect(Buffer.compare(await readRaw(h.gateway.database.db, row.org_id, row.id), raw)).toBe(0);
      const stored = await message(id);
      expect(Buffer.compare(Buffer.from(stored.x12, 'latin1'), raw)).toBe(0);
      expect(stored.sha256).toBe(createHash('sha256').update(raw).digest('hex'));
    });

    it('reads a message stored before bodies were chunked from its row', async () => {
      const { id: orgId } = await h.gateway.database.db.selectFrom('orgs').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow();
      const x12 = readEdiFixture('po-4010-single.x12');
      const at = '2026-01-01T00:00:00.000Z';
      await h.gateway.database.db
        .insertInto('edi_messages')
        .values({
          id: 'msg_legacy_inline', org_id: orgId, direction: 'inbound', partner_id: null, type: null, control_number: null, status: 'not_x12',
          size: x12.length, sha256: createHash('sha256').update(x12).digest('hex'), raw: Buffer.from(x12, 'latin1'), errors: null,
          http_status: 400, result: null, related_id: null, parent_id: null, order_id: null, created_at: at, updated_at: at,
        })
        .execute();
      expect((await message('msg_legacy_inline')).x12).toBe(x12);
    });

    it('refuses JSON and other media types with 415', async () => {
      expectError(await h.request({ method: 'POST', url: '/v1/edi', payload: { x12: 'ISA' }, key }), 415, 'unsupported_media_type');
      expectError(await submit(h, key, 'ISA', 'application/octet-stream'), 415, 'unsupported_media_type');
    });

    it('takes interchanges above the JSON body limit and refuses bodies over 10 MB with 413', async () => {
      const notes = Array.from({ length: 8 }, (_, n) => [`N9*ZZ*BULK${n}~`, ...Array.from({ length: 900 }, () => `MSG*${'x'.repeat(250)}~`)]).flat();
      const body = [
        'ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *260601*1200*U*00401*000001212*0*P*>~',
        'GS*PO*BUYERCO*TIREGW*20260601*1200*4343*X*004010~',
        'ST*850*0001~',
        'BEG*00*SA*PO-BIG**20260601~',
        ...notes,
        'N1*ST*Big Wheels~',
        'PO1*1*1*EA*1**VP*TIRE-225~',
        `SE*${notes.length + 5}*0001~`,
        'GE*1*4343~',
        'IEA*1*000001212~',
      ].join('\n');
      expect(body.length).toBeGreaterThan(h.config.BODY_LIMIT_BYTES);
      const result = await ok(body);
      expect(result.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-BIG' });
      expect((await order('PO-BIG')).notes?.length).toBe(4000);
      expectError(await submit(h, key, Buffer.alloc(10 * 1024 * 1024 + 1, 0x41)), 413, 'payload_too_large');
    });

    it('takes a body sent without a content-length (chunked) whole, and refuses one that runs past 10 MB with 413', async () => {
      // In uneven pieces, over 64 KB in all, so the buffer the body is read into grows several times on the way.
      const raw = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i % 1000 === 999 ? 0xff : 0x41 + (i % 26))));
      const pieces = (bytes: Buffer, size: number) => Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));
      const res = await h.request({ method: 'POST', url: '/v1/edi', payload: pieces(raw, 7_777), key, headers: { 'content-type': 'text/plain' } });
      const id = (expectError(res, 400, 'invalid_input').details as { message_id: string }).message_id;
      const row = await storedRow(id);
      expect(row.size).toBe(raw.length);
      expect(Buffer.compare(await readRaw(h.gateway.database.db, row.org_id, row.id), raw)).toBe(0);
      const tooLarge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x41);
      const refused = await h.request({ method: 'POST', url: '/v1/edi', payload: pieces(tooLarge, 65_536), key, headers: { 'content-type': 'text/plain' } });
      expectError(refused, 413, 'payload_too_large');
    });
  });

  describe('trading partner and receiver', () => {
    it('an unknown sender: 422 naming the qualifier/id, no 997', async () => {
      const text = withIsa(readEdiFixture('po-4010-single.x12'), 'BUYERCO        ', 'STRANGER');
      const details = await unprocessable(text, 'unknown_partner');
      expect(details.errors).toEqual([expect.objectContaining({ code: 'unknown_partner', segment_id: 'ISA', element: 6, value: 'STRANGER' })]);
      const error = expectError(await submit(h, key, text), 422);
      expect(error.error).toContain('ZZ/STRANGER');
      expect(details.acknowledgments).toBeUndefined();
      expect(await message(details.message_id)).toMatchObject({ status: 'rejected', partner: null, control_number: '000000101' });
    });

    it('a receiver other than the org\'s own interchange id: 422', async () => {
      const text = withIsa(readEdiFixture('po-4010-single.x12'), 'TIREGATEWAY    ', 'SOMEONEELSE');
      const error = expectError(await submit(h, key, text), 422, 'wrong_receiver');
      expect(error.error).toContain('ZZ/SOMEONEELSE');
      expect((error.details as Unprocessable).errors).toEqual([expect.objectContaining({ code: 'wrong_receiver', element: 8 })]);
    });

    it('a partner of another org is unknown here', async () => {
      await h.org('globex');
      await h.gateway.services.ediPartners.create({ org: 'globex', name: 'Stranger', isa: 'ZZ/STRANGER', ourIsa: 'ZZ/TIREGATEWAY' });
      const text = withIsa(readEdiFixture('po-4010-single.x12'), 'BUYERCO        ', 'STRANGER');
      const details = await unprocessable(text, 'unknown_partner');
      expect(details.errors[0]?.code).toBe('unknown_partner');
    });
  });

  describe('resending an interchange', () => {
    it('the same bytes get the stored answer and create nothing twice', async () => {
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000131').replace('PO-1001', 'PO-1031');
      const first = await ok(text);
      const orders = await orderCount();
      const again = await ok(text);
      expect(again).toEqual(first);
      expect(await orderCount()).toBe(orders);
      const list = await h.request({ method: 'GET', url: '/v1/edi/messages?direction=inbound&type=850&limit=200', key });
      const resends = list.json<{ messages: { status: string; related_message_id: string | null }[] }>().messages.filter((m) => m.related_message_id === first.message_id);
      expect(resends.map((m) => m.status)).toEqual(['duplicate']);
    });

    it('a resent 422 gets the same 422', async () => {
      const text = readEdiFixture('missing-beg.x12').replaceAll('000001010', '000001038');
      const first = await unprocessable(text);
      const again = await unprocessable(text);
      expect(again).toEqual(first);
    });

    it('the same ISA13 with different bytes: 409', async () => {
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000141').replace('PO-1001', 'PO-1041');
      await ok(text);
      const error = expectError(await submit(h, key, text.replace('PO-1041', 'PO-1042')), 409, 'duplicate_control_number');
      const stored = await message((error.details as { message_id: string }).message_id);
      expect(stored.status).toBe('conflict');
      expectError(await h.request({ method: 'GET', url: '/v1/orders/PO-1042', key }), 404);
    });

    it('a resend finishes at once an interchange whose taking failed in a process that lives on', async () => {
      // The orders insert fails once, as a slice's transaction does when the primary dies under it; the process lives,
      // so unless the failed call gives its lease up, a resend waits (30 s, then 503) for it to finish what nobody takes.
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000161').replace('PO-1001', 'PO-1061');
      const db = h.gateway.database.db;
      if (dialect === 'postgres') {
        await sql`create function fail_po_1061() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(db);
        await sql`create trigger fail_po_1061 before insert on orders for each row when (new.po_number = 'PO-1061') execute function fail_po_1061()`.execute(db);
      } else {
        await sql`create trigger fail_po_1061 before insert on orders when new.po_number = 'PO-1061' begin select raise(abort, 'injected failure'); end`.execute(db);
      }
      const failed = await submit(h, key, text);
      expect(failed.statusCode).toBe(500);
      await sql`drop trigger fail_po_1061${sql.raw(dialect === 'postgres' ? ' on orders' : '')}`.execute(db);
      const started = Date.now();
      const again = await ok(text);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(again.status).toBe('accepted');
      await order('PO-1061');
    });

    it('the same interchange twice at once: one order, one answer', async () => {
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', '000000151').replace('PO-1001', 'PO-1051');
      const [a, b] = await Promise.all([submit(h, key, text), submit(h, key, text)]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect(a.json()).toEqual(b.json());
      await order('PO-1051');
    });
  });

  describe('control numbers', () => {
    it('are per org, taken once each, also under concurrent requests', async () => {
      await seedEdiCatalog(h, 'initech');
      await seedPartners(h, 'initech');
      const mine = (await h.key('initech', 'edi:write')).key;
      const bodies = Array.from({ length: 8 }, (_, i) => {
        const n = String(9000 + i);
        return readEdiFixture('po-4010-single.x12').replaceAll('000000101', n.padStart(9, '0')).replace('PO-1001', `PO-${n}`);
      });
      const results = await Promise.all(bodies.map((body) => submit(h, mine, body)));
      const numbers = results.map((res) => {
        expect(res.statusCode, res.body).toBe(200);
        const x12 = res.json<SubmitBody>().reply?.x12 ?? '';
        const { interchange } = readBack(x12);
        expect(interchange.groups[0]?.controlNumber).toBe(String(Number(interchange.controlNumber)));
        return Number(interchange.controlNumber);
      });
      expect([...numbers].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });
});
