import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness } from '../../../support/harness.js';
import { readBack, readEdiFixture, replySet, startEdiHarness, submit, type SubmitBody, submitOk } from '../edi-support.js';

const PO = readEdiFixture('po-4010-single.x12');

/** The fixture under another ISA13 and PO number; `ta1` sets ISA14 (1: the partner asks for a TA1). */
function variant(control: number, po: string, ta1 = false): string {
  const isa13 = String(control).padStart(9, '0');
  const text = PO.replaceAll('000000101', isa13).replace('PO-1001', po);
  return ta1 ? text.replace(`*${isa13}*0*P*`, `*${isa13}*1*P*`) : text;
}

/** The TA1 segment of a TA1 interchange, as elements with the id first. */
function ta1Segment(x12: string | undefined): string[] {
  const line = (x12 ?? '').split('\n').find((l) => l.startsWith('TA1*'));
  return (line ?? '').replace(/~\r?$/, '').split('*');
}

describe.each(dialects)('POST /v1/edi: TA1, fallback notes, further interchange ids (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const ok = (body: string | Buffer): Promise<SubmitBody> => submitOk(h, key, body);

  it('answers ISA14 1 with a TA1 A 000 from our id, in the one reply interchange before the 997s', async () => {
    const result = await ok(variant(801, 'PO-T801', true));
    expect(result.interchange_ack).toMatchObject({ code: 'A', note: '000' });
    expect(ta1Segment(result.reply?.x12)).toEqual(['TA1', '000000801', '260601', '1200', 'A', '000']);
    const isa = result.reply?.x12?.split('\n')[0] ?? '';
    expect(isa).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*TIREGATEWAY {4}\*ZZ\*BUYERCO {8}\*/);
    // A TA1 never asks for a TA1 back.
    expect(isa.split('*')[14]).toBe('0');
    const stored = await h.request({ method: 'GET', url: `/v1/edi/messages/${result.reply?.message_id}?include=raw`, key });
    expect(stored.statusCode).toBe(200);
    expect(stored.json<{ message: { type: string; direction: string; related_message_id: string; x12: string } }>().message).toMatchObject({
      type: '997',
      direction: 'outbound',
      related_message_id: result.message_id,
      x12: result.reply?.x12,
    });
    // One interchange: the TA1 between the ISA and the FA group, one ISA and one IEA.
    const lines = (result.reply?.x12 ?? '').trim().split('\n');
    expect(lines.map((l) => l.split('*')[0])).toEqual(['ISA', 'TA1', 'GS', 'ST', 'AK1', 'AK2', 'AK5', 'AK9', 'SE', 'GE', 'IEA']);
    expect(replySet(result)).toEqual(['AK1*PO*101', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
  });

  it('sends no TA1 for a clean interchange with ISA14 0', async () => {
    const result = await ok(variant(802, 'PO-T802'));
    expect(result.interchange_ack).toBeUndefined();
  });

  it('rejects an interchange-level error with a TA1 R and its note code, ISA14 0 or not', async () => {
    const body = variant(803, 'PO-T803').replace('IEA*1*000000803', 'IEA*1*000000999');
    const res = await submit(h, key, body);
    const details = expectError(res, 422, 'interchange_rejected').details as SubmitBody;
    expect(details.interchange_ack).toMatchObject({ code: 'R', note: '001' });
    expect(ta1Segment(details.reply?.x12)).toEqual(['TA1', '000000803', '260601', '1200', 'R', '001']);
    expect(details.acknowledgments.map((a) => a.code)).toEqual(['R']);
  });

  it('answers a reused ISA13 with other bytes with a 409 carrying a TA1 R 025; the same bytes again get the stored answer', async () => {
    const first = await ok(variant(804, 'PO-T804', true));
    const res = await submit(h, key, variant(804, 'PO-T804-CHANGED', true));
    const details = expectError(res, 409, 'duplicate_control_number').details as { original_message_id: string; interchange_ack: NonNullable<SubmitBody['interchange_ack']>; reply: NonNullable<SubmitBody['reply']> };
    expect(details.original_message_id).toBe(first.message_id);
    expect(details.interchange_ack).toMatchObject({ code: 'R', note: '025' });
    expect(ta1Segment(details.reply.x12)).toEqual(['TA1', '000000804', '260601', '1200', 'R', '025']);
    const again = await ok(variant(804, 'PO-T804', true));
    expect(again.interchange_ack).toEqual(first.interchange_ack);
  });

  it('takes an inbound TA1 between the ISA and the first GS; one after a group is still content outside a group', async () => {
    const withTa1 = (text: string, before: string): string => text.replace(before, `TA1*000000042*260601*1200*A*000~\r\n${before}`);
    const result = await ok(withTa1(variant(805, 'PO-T805'), 'GS*'));
    expect(result.documents).toMatchObject([{ status: 'accepted', po_number: 'PO-T805' }]);
    const res = await submit(h, key, withTa1(variant(806, 'PO-T806'), 'IEA*'));
    const details = expectError(res, 422, 'interchange_rejected').details as SubmitBody & { errors: { code: string; segment_id?: string }[] };
    expect(details.errors).toContainEqual(expect.objectContaining({ code: 'TA105:024', segment_id: 'TA1' }));
  });

  it('notes a set checked against the nearest version table in the answer, and none for a version with its own table', async () => {
    const res = await submit(h, key, variant(807, 'PO-T807').replace('*X*004010~', '*X*006010~'));
    const body = res.json<{ ok: boolean; details?: SubmitBody } & Partial<SubmitBody>>();
    const documents = body.ok ? body.documents : body.details?.documents;
    expect(documents?.[0]?.notes).toEqual([expect.stringMatching(/no 850 table for version '006010'.*005010/)]);
    const plain = await ok(variant(808, 'PO-T808'));
    expect(plain.documents[0]?.notes).toBeUndefined();
  });

  it('receives under a further interchange id and answers the 997 and TA1 from the id the partner addressed', async () => {
    const partners = h.gateway.services.ediPartners;
    await partners.addInterchangeId('acme', 'ZZ/OTHERID');
    const toOther = (text: string): string => text.replace('*ZZ*TIREGATEWAY    *', '*ZZ*OTHERID        *');
    const result = await ok(toOther(variant(809, 'PO-T809', true)));
    expect(result.documents).toMatchObject([{ status: 'accepted', po_number: 'PO-T809' }]);
    expect(readBack(result.reply?.x12 ?? '').interchange.senderId).toBe('OTHERID');
    expect(result.reply?.x12).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*OTHERID {8}\*ZZ\*BUYERCO/);
    const nobody = await submit(h, key, variant(810, 'PO-T810').replace('*ZZ*TIREGATEWAY    *', '*ZZ*NOBODY         *'));
    expect(expectError(nobody, 422, 'wrong_receiver').error).toMatch(/not this organisation's interchange id ZZ\/TIREGATEWAY/);
    expect((await partners.listInterchangeIds('acme')).map((v) => v.isa)).toEqual(['ZZ/TIREGATEWAY', 'ZZ/OTHERID']);
  });

  it('refuses a bad, repeated or main further interchange id', async () => {
    const partners = h.gateway.services.ediPartners;
    await expect(partners.addInterchangeId('acme', 'NOSLASH')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(partners.addInterchangeId('acme', 'ZZ/WAY-TOO-LONG-AN-ID-1')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(partners.addInterchangeId('acme', 'ZZ/TIREGATEWAY')).rejects.toMatchObject({ code: 'already_exists' });
    await partners.addInterchangeId('acme', 'ZZ/THIRDID');
    await expect(partners.addInterchangeId('acme', 'ZZ/THIRDID')).rejects.toMatchObject({ code: 'already_exists' });
    await expect(partners.addInterchangeId('nope', 'ZZ/THIRDID')).rejects.toMatchObject({ code: 'not_found' });
  });
});
