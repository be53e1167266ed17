import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, itChecksAuth } from '../../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { callMcp } from '../../../support/operations.js';
import { seedPartners } from '../edi-support.js';

interface ApiPartner {
  id: string;
  name: string;
  isa: { qualifier: string; id: string };
  our_isa: { qualifier: string; id: string } | null;
  outbound_delivery: boolean;
  [field: string]: unknown;
}
interface PartnerList {
  partners: ApiPartner[];
  our_interchange_ids: { qualifier: string; id: string; main: boolean }[];
  next_cursor: string | null;
}

describe.each(dialects)('EDI partners through REST and MCP (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let ids: { buyer: string; dealer: string };

  beforeAll(async () => {
    h = await startHarness(dialect);
    // BuyerCo delivers to a URL with credentials in it: the API must not show them.
    ids = await seedPartners(h, 'acme', { outboundUrl: 'https://edi-user:s3cret-pass@buyer.example.com/edi?token=tok_secret' });
    await h.gateway.services.ediPartners.addInterchangeId('acme', '01/987654321');
    await seedPartners(h, 'globex');
    key = (await h.key('acme', 'edi:read')).key;
  });
  afterAll(() => h.close());

  const get = async (url: string, as = key) => h.request({ method: 'GET', url, key: as });

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'GET', url: '/v1/edi/partners', scope: 'edi:read' });
    itChecksAuth(() => h, { method: 'GET', url: '/v1/edi/partners/tp_any', scope: 'edi:read' });
  });

  it('lists the partners by name with both sides\' interchange ids, and pages with the cursor', async () => {
    const res = await get('/v1/edi/partners');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<PartnerList>();
    expect(body.partners.map((p) => [p.name, p.isa, p.our_isa])).toEqual([
      ['BuyerCo', { qualifier: 'ZZ', id: 'BUYERCO' }, { qualifier: 'ZZ', id: 'TIREGATEWAY' }],
      ['DealerNet', { qualifier: '01', id: '123456789' }, { qualifier: 'ZZ', id: 'TIREGATEWAY' }],
    ]);
    expect(body.our_interchange_ids).toEqual([
      { qualifier: 'ZZ', id: 'TIREGATEWAY', main: true },
      { qualifier: '01', id: '987654321', main: false },
    ]);
    expect(body.next_cursor).toBeNull();
    const first = (await get('/v1/edi/partners?limit=1')).json<PartnerList>();
    expect(first.partners.map((p) => p.name)).toEqual(['BuyerCo']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await get(`/v1/edi/partners?limit=1&cursor=${first.next_cursor}`)).json<PartnerList>();
    expect(second.partners.map((p) => p.name)).toEqual(['DealerNet']);
    expect(second.next_cursor).toBeNull();
  });

  it('gets one partner by id, and shows no secret of its delivery URL', async () => {
    const res = await get(`/v1/edi/partners/${ids.buyer}`);
    expect(res.statusCode, res.body).toBe(200);
    const { partner } = res.json<{ partner: ApiPartner }>();
    expect(partner).toMatchObject({ id: ids.buyer, name: 'BuyerCo', gs_id: null, validation: 'strict', outbound_delivery: true, sku_qualifiers: ['VP', 'VN', 'BP', 'SK', 'UP'] });
    expect(res.body).not.toMatch(/s3cret|tok_secret|edi-user|buyer\.example\.com/);
    expect((await get(`/v1/edi/partners/${ids.dealer}`)).json<{ partner: ApiPartner }>().partner).toMatchObject({ gs_id: 'DEALERNET', outbound_delivery: false });
  });

  it('answers the same through the MCP tools', async () => {
    const rest = (await get('/v1/edi/partners')).json<PartnerList & { ok: true }>();
    const listed = await callMcp(h, 'edi_partners_list', {}, key);
    expect(listed.isError).toBe(false);
    expect(listed.payload).toEqual({ partners: rest.partners, our_interchange_ids: rest.our_interchange_ids, next_cursor: null });
    const got = await callMcp(h, 'edi_partners_get', { id: ids.dealer }, key);
    expect((got.payload as { partner: ApiPartner }).partner.name).toBe('DealerNet');
    const missing = await callMcp(h, 'edi_partners_get', { id: 'tp_none' }, key);
    expect(missing).toMatchObject({ isError: true, status: 404 });
  });

  it('keeps each org to its own partners: another org\'s partner is not found', async () => {
    const theirs = (await h.key('globex', 'edi:read')).key;
    const list = (await get('/v1/edi/partners', theirs)).json<PartnerList>();
    expect(list.partners.map((p) => p.id).sort()).not.toContain(ids.buyer);
    expect(list.our_interchange_ids).toEqual([{ qualifier: 'ZZ', id: 'TIREGATEWAY', main: true }]);
    expectError(await get(`/v1/edi/partners/${ids.buyer}`, theirs), 404, 'not_found');
  });

  it.each([
    ['an unknown query parameter', '/v1/edi/partners?bogus=1'],
    ['a limit over 200', '/v1/edi/partners?limit=201'],
    ['a cursor that is not one', '/v1/edi/partners?cursor=nope'],
    ['an unknown parameter on the by-id GET', '/v1/edi/partners/tp_any?bogus=1'],
    ['an id with a bidi override', `/v1/edi/partners/${encodeURIComponent('tp_\u202eabc')}`],
  ])('refuses %s with a 400', async (_label, url) => {
    expectError(await get(url), 400, 'invalid_input');
  });

  it('refuses bad MCP arguments as REST does', async () => {
    expect(await callMcp(h, 'edi_partners_list', { limit: 0 }, key)).toMatchObject({ isError: true, status: 400 });
    expect(await callMcp(h, 'edi_partners_get', {}, key)).toMatchObject({ isError: true, status: 400 });
  });
});
