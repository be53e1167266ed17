import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, itChecksAuth } from '../../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { clientKinds, listen } from '../../../mcp/support/mcp-clients.js';
import { readBack, readEdiFixture, seedEdiCatalog, seedPartners, submit, type SubmitBody } from '../edi-support.js';

interface Summary {
  id: string;
  direction: string;
  type: string | null;
  status: string;
  partner: { id: string; name: string } | null;
  related_message_id: string | null;
}

describe.each(dialects)('EDI messages: REST and MCP (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let partners: { buyer: string; dealer: string };
  let buyerIntake: SubmitBody;
  let dealerIntake: SubmitBody;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    partners = await seedPartners(h, 'acme');
    key = (await h.key('acme', 'edi:read,edi:write')).key;
    buyerIntake = (await submit(h, key, readEdiFixture('po-4010-single.x12'))).json<SubmitBody>();
    h.clock.advance(1000);
    dealerIntake = (await submit(h, key, readEdiFixture('po-5010-multi.x12'))).json<SubmitBody>();
    h.clock.advance(1000);
    expect((await submit(h, key, 'not an interchange')).statusCode).toBe(400);
  });
  afterAll(() => h.close());

  const list = async (query: string, as = key): Promise<{ messages: Summary[]; next_cursor: string | null }> => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages${query}`, key: as });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ messages: Summary[]; next_cursor: string | null }>();
  };

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'GET', url: '/v1/edi/messages', scope: 'edi:read' });
    itChecksAuth(() => h, { method: 'GET', url: '/v1/edi/messages/msg_any', scope: 'edi:read' });

    it('edi:write alone cannot read messages', async () => {
      const writer = (await h.key('acme', 'edi:write')).key;
      expectError(await h.request({ method: 'GET', url: '/v1/edi/messages', key: writer }), 403, 'missing_scope');
    });
  });

  it('lists newest first with the inbound interchanges, the 997s and the refused body', async () => {
    const { messages } = await list('');
    expect(messages).toHaveLength(5);
    expect(messages[0]).toMatchObject({ direction: 'inbound', status: 'not_x12', type: null, partner: null });
    expect(messages.filter((m) => m.direction === 'inbound').map((m) => m.type)).toEqual([null, '850', '850']);
  });

  it('filters by direction, type and partner (id or name)', async () => {
    expect((await list('?direction=outbound')).messages.map((m) => m.type)).toEqual(['997', '997']);
    expect((await list('?type=850')).messages.map((m) => m.id).sort()).toEqual([buyerIntake.message_id, dealerIntake.message_id].sort());
    expect((await list('?type=997&direction=inbound')).messages).toEqual([]);
    const dealer = await list(`?partner=${partners.dealer}`);
    expect(dealer.messages.map((m) => m.id).sort()).toEqual([dealerIntake.message_id, dealerIntake.reply?.message_id].sort());
    expect((await list('?partner=DealerNet')).messages).toEqual(dealer.messages);
    expect((await list('?partner=nobody')).messages).toEqual([]);
  });

  it('pages with next_cursor', async () => {
    const first = await list('?limit=2');
    expect(first.messages).toHaveLength(2);
    const rest = await list(`?limit=10&cursor=${first.next_cursor ?? ''}`);
    expect(rest.next_cursor).toBeNull();
    expect([...first.messages, ...rest.messages].map((m) => m.id)).toEqual((await list('')).messages.map((m) => m.id));
  });

  it('refuses bad filters with 400', async () => {
    expectError(await h.request({ method: 'GET', url: '/v1/edi/messages?type=999', key }), 400, 'invalid_input');
    expectError(await h.request({ method: 'GET', url: '/v1/edi/messages?direction=sideways', key }), 400, 'invalid_input');
    expectError(await h.request({ method: 'GET', url: '/v1/edi/messages?cursor=zzz', key }), 400, 'invalid_input');
  });

  it('shows one message with its documents and raw X12; 404 for an unknown id', async () => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages/${dealerIntake.message_id}?include=raw`, key });
    const message = res.json<{ message: { documents: SubmitBody['documents']; x12: string } }>().message;
    expect(message.documents.map((d) => d.po_number)).toEqual(['DN-77', 'DN-78', 'DN-79']);
    expect(message.x12).toBe(readEdiFixture('po-5010-multi.x12'));
    expectError(await h.request({ method: 'GET', url: '/v1/edi/messages/msg_nope', key }), 404, 'not_found');
  });

  it('keeps orgs apart: another org sees none of it, and its own submissions stay its own', async () => {
    await seedEdiCatalog(h, 'globex');
    await seedPartners(h, 'globex');
    const theirs = (await h.key('globex', 'edi:read,edi:write')).key;
    expect((await list('', theirs)).messages).toEqual([]);
    expectError(await h.request({ method: 'GET', url: `/v1/edi/messages/${buyerIntake.message_id}?include=raw`, key: theirs }), 404, 'not_found');
    // The same interchange from the same-named partner in another org is that org's first, not a resend.
    const res = await submit(h, theirs, readEdiFixture('po-4010-single.x12'));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<SubmitBody>();
    expect(body.message_id).not.toBe(buyerIntake.message_id);
    expect(body.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-1001' });
    expect(readBack(body.reply?.x12 ?? '').interchange.controlNumber).toBe('000000001');
    expect((await list('', theirs)).messages).toHaveLength(2);
  });

  describe('MCP tools', () => {
    it('edi_submit, edi_messages_list and edi_messages_get answer like REST', async () => {
      const url = await listen(h);
      const kind = clientKinds[0];
      if (kind === undefined) throw new Error('no MCP client');
      const client = await kind.connect(url, (await h.key('acme', 'edi:read,edi:write')).key);
      try {
        const x12 = readEdiFixture('po-newline-terminator.x12');
        const submitted = await client.call('edi_submit', { x12 });
        expect(submitted.isError, JSON.stringify(submitted)).toBeFalsy();
        const result = submitted.structuredContent as unknown as SubmitBody;
        expect(result.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-404' });
        expect(readBack(result.reply?.x12 ?? '').body).toEqual(['AK1*PO*404', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
        // The resend answers the same, as over REST.
        expect((await client.call('edi_submit', { x12 })).structuredContent).toEqual(submitted.structuredContent);

        const listed = await client.call('edi_messages_list', { direction: 'inbound', type: '850' });
        const messages = (listed.structuredContent as { messages: Summary[] }).messages;
        expect(messages.some((m) => m.id === result.message_id)).toBe(true);
        const got = await client.call('edi_messages_get', { id: result.message_id });
        expect((got.structuredContent as { message: { x12?: string } }).message.x12).toBeUndefined();
        const withRaw = await client.call('edi_messages_get', { id: result.message_id, include: 'raw' });
        expect((withRaw.structuredContent as { message: { x12: string } }).message.x12).toBe(x12);

        const refused = await client.call('edi_submit', { x12: readEdiFixture('missing-beg.x12') });
        expect(refused.isError).toBe(true);
        expect(refused.content[0]?.text).toMatch(/no transaction set was accepted: .*BEG at segment 4/);
        const notX12 = await client.call('edi_submit', { x12: 'hello' });
        expect(notX12.isError).toBe(true);
        expect(notX12.content[0]?.text).toMatch(/not an X12 interchange/);
      } finally {
        await client.close();
      }
    });
  });
});
