import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness } from '../../../support/harness.js';
import { buyerInterchange as interchange, readBack, replySet, set850, startEdiHarness, submit, type SubmitBody } from '../edi-support.js';

describe.each(dialects)('POST /v1/edi: one reply interchange, codes per version, validation levels (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const orderExists = async (po: string) => (await h.request({ method: 'GET', url: `/v1/orders/${po}`, key })).statusCode === 200;
  const setValidation = (validation: 'strict' | 'lenient') => h.gateway.services.ediPartners.setProfile('acme', 'BuyerCo', { validation });

  it('answers three groups of two versions in one interchange: one ISA13, one FA group per version, the 997s numbered within each', async () => {
    const res = await submit(
      h,
      key,
      interchange(9501, [
        { control: '951', sets: [set850('0001', 'PO-R951')] },
        { control: '952', version: '005010', sets: [set850('0001', 'PO-R952', [], '005010')] },
        { control: '953', sets: [set850('0001', 'PO-R953')] },
      ]),
    );
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<SubmitBody>();
    expect(answer.acknowledgments).toEqual([{ group: '951', code: 'A' }, { group: '952', code: 'A' }, { group: '953', code: 'A' }]);
    const { interchange: reply } = readBack(answer.reply?.x12 ?? '');
    expect(reply.controlNumber).toBe(answer.reply?.control_number);
    expect(reply.groups.map((g) => [g.functionalId, g.version, g.transactionSets.map((s) => s.controlNumber)])).toEqual([
      ['FA', '004010', ['0001', '0002']],
      ['FA', '005010', ['0001']],
    ]);
    expect(replySet(answer, 0)[0]).toBe('AK1*PO*951');
    expect(replySet(answer, 1)[0]).toBe('AK1*PO*953');
    expect(replySet(answer, 2)[0]).toBe('AK1*PO*952*005010');
    // Stored once, as one outbound message, and the answer's text is that message.
    const stored = await h.request({ method: 'GET', url: `/v1/edi/messages/${answer.reply?.message_id}?include=raw`, key });
    expect(stored.json<{ message: { type: string; x12: string } }>().message).toMatchObject({ type: '997', x12: answer.reply?.x12 });
  });

  it('stores a reply over 512 KB once and names it: no X12 inline in the answer, the hub event or the webhook event, which carry its size', async () => {
    // 5,000 groups of one empty 850: every set rejected, a 997 of about 700 KB.
    const groups = Array.from({ length: 5000 }, (_, i) => ({ control: String(20_000 + i), sets: [['ST*850*0001', 'SE*2*0001']] }));
    const details = expectError(await submit(h, key, interchange(9508, groups)), 422, 'interchange_rejected').details as SubmitBody;
    const reply = details.reply;
    expect(reply?.size).toBeGreaterThan(512 * 1024);
    expect(reply?.x12).toBeUndefined();
    // The stored message has every byte, read back a page at a time.
    const pages: string[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page = await h.request({ method: 'GET', url: `/v1/edi/messages/${reply?.message_id}?include=raw&raw_offset=${offset}`, key });
      const message = page.json<{ message: { x12: string; sha256: string; raw: { next_offset: number | null } } }>().message;
      pages.push(message.x12);
      offset = message.raw.next_offset;
    }
    const x12 = pages.join('');
    expect(Buffer.byteLength(x12)).toBe(reply?.size);
    const { interchange: stored } = readBack(x12);
    expect(stored.controlNumber).toBe(reply?.control_number);
    expect(stored.groups.flatMap((g) => g.transactionSets)).toHaveLength(5000);
    // Its edi.document event (the hub's data, which the webhook event carries as is) names the message and its size.
    const { key: eventsKey } = await h.key('acme', 'webhooks:read');
    const events = (await h.request({ method: 'GET', url: '/v1/events?type=edi.document.sent&limit=100', key: eventsKey })).json<{ events: { data: Record<string, unknown> }[] }>().events;
    const event = events.find((e) => e.data.message_id === reply?.message_id);
    expect(event?.data).toMatchObject({ type: '997', size: reply?.size, control_number: reply?.control_number, related_message_id: details.message_id });
    expect(event?.data).not.toHaveProperty('x12');
    // A small reply is still inline, in the answer and in its event, with its size beside it.
    const small = await submit(h, key, interchange(9509, [{ control: '959', sets: [set850('0001', 'PO-R959')] }]));
    const smallReply = small.json<SubmitBody>().reply;
    const smallEvent = (await h.request({ method: 'GET', url: '/v1/events?type=edi.document.sent&limit=100', key: eventsKey }))
      .json<{ events: { data: Record<string, unknown> }[] }>()
      .events.find((e) => e.data.message_id === smallReply?.message_id);
    expect(smallEvent?.data).toMatchObject({ size: smallReply?.size, x12: smallReply?.x12 });
  });

  it('answers an ISA12 00402 interchange of a 005010 group in an 00402 envelope, GS08 005010', async () => {
    const res = await submit(h, key, interchange(9502, [{ control: '954', version: '005010', sets: [set850('0001', 'PO-R954', [], '005010')] }], '00402'));
    expect(res.statusCode, res.body).toBe(200);
    const { interchange: reply } = readBack(res.json<SubmitBody>().reply?.x12 ?? '');
    expect(reply.version).toBe('00402');
    expect(reply.isa[10]).toBe('^');
    expect(reply.groups[0]?.version).toBe('005010');
  });

  it.each([
    ['004010', '6'],
    ['005010', '19'],
  ])('a reused GS06 in a %s group is rejected with an AK905 code that version holds (%s)', async (version, code) => {
    const isa13 = version === '004010' ? 9503 : 9504;
    const set = (po: string) => set850('0001', po, [], version);
    const res = await submit(h, key, interchange(isa13, [{ control: '955', version, sets: [set(`PO-G${isa13}-1`)] }, { control: '955', version, sets: [set(`PO-G${isa13}-2`)] }]));
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<SubmitBody>();
    expect(replySet(answer, 1).at(-1)).toBe(`AK9*R*1*1*0*${code}`);
    expect(answer.errors?.map((e) => e.code)).toEqual(['AK905:19']);
    expect([await orderExists(`PO-G${isa13}-1`), await orderExists(`PO-G${isa13}-2`)]).toEqual([true, false]);
  });

  it('strict (the default): a broken relational rule on an element the gateway does not read rejects the set', async () => {
    await setValidation('strict');
    const details = expectError(await submit(h, key, interchange(9505, [{ control: '956', sets: [set850('0001', 'PO-L956', ['REF*DP'])] }])), 422, 'interchange_rejected').details as SubmitBody;
    expect(replySet(details)).toEqual(['AK1*PO*956', 'AK2*850*0001', 'AK3*REF*3**8', 'AK4*2*127*2', 'AK5*R*5', 'AK9*R*1*1*0']);
    expect(await orderExists('PO-L956')).toBe(false);
  });

  it('lenient: the same set is accepted with errors noted (AK5 E, AK9 E), processed, and its document lists the finding', async () => {
    await setValidation('lenient');
    try {
      const res = await submit(h, key, interchange(9506, [{ control: '957', sets: [set850('0001', 'PO-L957', ['REF*DP'])] }]));
      expect(res.statusCode, res.body).toBe(200);
      const answer = res.json<SubmitBody>();
      expect(answer.acknowledgments).toEqual([{ group: '957', code: 'E' }]);
      expect(replySet(answer)).toEqual(['AK1*PO*957', 'AK2*850*0001', 'AK3*REF*3**8', 'AK4*2*127*2', 'AK5*E*5', 'AK9*E*1*1*1']);
      expect(answer.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-L957', order_id: expect.stringMatching(/^ord_/) as unknown });
      expect(answer.documents[0]?.errors?.map((e) => e.code)).toEqual(['AK403:2']);
      expect(await orderExists('PO-L957')).toBe(true);
      // A finding on an element the gateway reads still rejects, lenient or not.
      const bad = await submit(h, key, interchange(9507, [{ control: '958', sets: [set850('0001', 'PO-L958').map((s) => s.replace('PO1*1*4*EA', 'PO1*1*4*ZZZZ'))] }]));
      expect(bad.statusCode, bad.body).toBe(422);
      expect(await orderExists('PO-L958')).toBe(false);
    } finally {
      await setValidation('strict');
    }
  });
});
