import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_INTERCHANGES_PER_BODY } from '../../../../src/modules/edi/messages/interchange-bytes.js';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness } from '../../../support/harness.js';
import { readEdiFixture, startEdiHarness, submit, type SubmitBody } from '../edi-support.js';

const PO = readEdiFixture('po-4010-single.x12');

interface Entry {
  message_id: string;
  control_number: string | null;
  status: number;
  result?: SubmitBody;
  error?: { code: string; message: string; details?: { errors?: { code: string }[] } };
}
type SeveralBody = SubmitBody & { interchanges?: Entry[] };

/** The fixture under another ISA13 and PO number: a new interchange and a new order each. */
function interchange(control: number, po: string): string {
  return PO.replaceAll('000000101', String(control).padStart(9, '0')).replace('PO-1001', po);
}

/** The same interchange written with other delimiters: '|' between elements, '!' ending segments, '^' inside. */
function otherDelimiters(text: string): string {
  return text.replaceAll('*', '|').replaceAll('~\r\n', '!\n').replace('|>!', '|^!');
}

describe.each(dialects)('POST /v1/edi with several interchanges in one body (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const message = async (id: string) => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages/${id}?include=raw`, key });
    expect(res.statusCode).toBe(200);
    return res.json<{ message: { x12: string; parent_message_id: string | null; control_number: string | null; status: string } }>().message;
  };
  const orderExists = async (po: string) => (await h.request({ method: 'GET', url: `/v1/orders/${po}`, key })).statusCode === 200;

  it('takes each interchange on its own: one 997 each, every order made, each stored as a message of the body', async () => {
    const first = interchange(801, 'PO-M801');
    const second = otherDelimiters(interchange(802, 'PO-M802'));
    const res = await submit(h, key, `${first}\r\n${second}`);
    expect(res.statusCode, res.body.slice(0, 2000)).toBe(200);
    const body = res.json<SeveralBody>();
    expect(body.interchanges?.map((e) => [e.control_number, e.status])).toEqual([
      ['000000801', 200],
      ['000000802', 200],
    ]);
    expect(body.documents.map((d) => [d.po_number, d.status])).toEqual([
      ['PO-M801', 'accepted'],
      ['PO-M802', 'accepted'],
    ]);
    expect(body.acknowledgments.map((a) => a.code)).toEqual(['A', 'A']);
    // The second interchange was read with its own delimiters: its 997 (in ours) accepts its set.
    expect(body.interchanges?.[1]?.result?.reply?.x12).toContain('AK2*850*0001~');
    expect(await orderExists('PO-M801')).toBe(true);
    expect(await orderExists('PO-M802')).toBe(true);
    const whole = await message(body.message_id);
    expect(whole.x12).toBe(`${first}\r\n${second}`);
    expect(whole.status).toBe('accepted');
    const [a, b] = await Promise.all((body.interchanges ?? []).map((e) => message(e.message_id)));
    expect(a).toMatchObject({ parent_message_id: body.message_id, control_number: '000000801', status: 'accepted' });
    expect(a?.x12).toBe(`${first}\r\n`);
    expect(b).toMatchObject({ parent_message_id: body.message_id, control_number: '000000802', status: 'accepted' });
    expect(b?.x12).toBe(second);
  });

  it('a resend of the whole body replays each interchange: the same answers, no order made twice', async () => {
    const text = `${interchange(811, 'PO-M811')}${interchange(812, 'PO-M812')}`;
    const first = await submit(h, key, text);
    expect(first.statusCode).toBe(200);
    const again = await submit(h, key, text);
    expect(again.statusCode).toBe(200);
    const was = first.json<SeveralBody>();
    const is = again.json<SeveralBody>();
    expect(is.message_id).not.toBe(was.message_id);
    expect(is.interchanges?.map((e) => e.result?.message_id)).toEqual(was.interchanges?.map((e) => e.message_id));
    expect(is.documents).toEqual(was.documents);
    const orders = await h.request({ method: 'GET', url: '/v1/orders?limit=50', key });
    expect(orders.json<{ orders: { po_number: string }[] }>().orders.filter((o) => o.po_number === 'PO-M811')).toHaveLength(1);
  });

  it('one refused interchange: 200 partial, each interchange with its own status, the others taken and kept', async () => {
    const stranger = interchange(822, 'PO-M822').replace('ZZ*BUYERCO        ', 'ZZ*STRANGER       ');
    const res = await submit(h, key, `${interchange(821, 'PO-M821')}\n${stranger}`);
    expect(res.statusCode, res.body).toBe(200);
    const details = res.json<SeveralBody>();
    expect(details.status).toBe('partial');
    expect(details.interchanges?.map((e) => e.status)).toEqual([200, 422]);
    expect(details.interchanges?.[1]?.error?.details?.errors?.map((e) => e.code)).toEqual(['unknown_partner']);
    expect(details.documents.map((d) => d.po_number)).toEqual(['PO-M821']);
    expect(await orderExists('PO-M821')).toBe(true);
  });

  it('the same ISA13 twice with other content: the second is a 409 conflict with a TA1, the first is taken', async () => {
    const res = await submit(h, key, `${interchange(831, 'PO-M831')}${interchange(831, 'PO-M832')}`);
    expect(res.statusCode, res.body).toBe(200);
    const details = res.json<SeveralBody>();
    expect(details.interchanges?.map((e) => e.status)).toEqual([200, 409]);
    expect(await orderExists('PO-M831')).toBe(true);
    expect(await orderExists('PO-M832')).toBe(false);
  });

  it('an interchange without its IEA is rejected and the next ISA is read as its own interchange', async () => {
    const broken = interchange(841, 'PO-M841').replace('IEA*1*000000841~\r\n', '');
    const res = await submit(h, key, `${broken}${interchange(842, 'PO-M842')}`);
    expect(res.statusCode, res.body).toBe(200);
    const details = res.json<SeveralBody>();
    expect(details.interchanges?.map((e) => [e.control_number, e.status])).toEqual([
      ['000000841', 422],
      ['000000842', 200],
    ]);
    expect(details.interchanges?.[0]?.error?.details?.errors?.some((e) => e.code === 'TA105:023')).toBe(true);
    expect(await orderExists('PO-M841')).toBe(false);
    expect(await orderExists('PO-M842')).toBe(true);
  });

  it('the answer stays bounded over every interchange: 1,000 findings at the top, 1,000 shared by the entries', async () => {
    // Three interchanges, each a PO of 600 unknown-SKU lines: 1,800 findings, each listed once at most in each place.
    const bigPo = (control: number) => {
      const isa13 = String(control).padStart(9, '0');
      const lines = Array.from({ length: 600 }, (_, i) => `PO1*${i + 1}*1*EA*5**VP*NO-SUCH-${control}-${i}~`);
      return [
        `ISA*00*          *00*          *ZZ*BUYERCO        *ZZ*TIREGATEWAY    *260601*1200*U*00401*${isa13}*0*P*>~`,
        `GS*PO*BUYERCO*TIREGW*20260601*1200*${control}*X*004010~`,
        'ST*850*0001~',
        `BEG*00*SA*PO-BIG-${control}**20260601~`,
        'N1*ST*Big Store*92*STORE1~',
        ...lines,
        `SE*${lines.length + 4}*0001~`,
        `GE*1*${control}~`,
        `IEA*1*${isa13}~`,
      ].join('\n');
    };
    const res = await submit(h, key, [871, 872, 873].map(bigPo).join('\n'));
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    const body = res.json<SeveralBody>();
    const findings = (documents: SubmitBody['documents']) => documents.reduce((n, d) => n + (d.errors?.length ?? 0), 0);
    expect(findings(body.documents)).toBe(1000);
    expect(body.omitted).toEqual({ message_id: body.message_id, documents: 0, acknowledgments: 0, findings: 3 * 601 - 1000 });
    const inEntries = (body.interchanges ?? []).reduce((n, e) => n + findings(e.result?.documents ?? []), 0);
    expect(inEntries).toBe(1000);
    // The first entry lists its 601, the second 399 of its 601, the third none: each says what it left out.
    expect(body.interchanges?.map((e) => e.result?.omitted?.findings ?? 0)).toEqual([0, 202, 601]);
  });

  it('an Idempotency-Key replays the combined answer', async () => {
    const text = `${interchange(851, 'PO-M851')}${interchange(852, 'PO-M852')}`;
    const send = () => h.request({ method: 'POST', url: '/v1/edi', payload: text, key, headers: { 'content-type': 'text/plain', 'idempotency-key': 'several-851' } });
    const first = await send();
    const again = await send();
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });

  it('every interchange refused: the body is refused with the code they share', async () => {
    const stranger = (n: number) => interchange(n, `PO-M${n}`).replace('ZZ*BUYERCO        ', 'ZZ*STRANGER       ');
    const error = expectError(await submit(h, key, `${stranger(861)}${stranger(862)}`), 422, 'unknown_partner');
    expect(String(error.error)).toContain('2 of 2 interchanges');
    expect((error.details as SeveralBody).interchanges?.map((e) => e.status)).toEqual([422, 422]);
  });

  it(`refuses a body of more than ${MAX_INTERCHANGES_PER_BODY} interchanges before taking any`, async () => {
    const many = Array.from({ length: MAX_INTERCHANGES_PER_BODY + 1 }, (_, i) => interchange(100_000 + i, `PO-X${i}`)).join('');
    const res = await submit(h, key, many);
    const error = expectError(res, 422, 'interchange_invalid');
    expect(String(error.error)).toContain(`more than ${MAX_INTERCHANGES_PER_BODY} interchanges`);
    expect(await orderExists('PO-X0')).toBe(false);
  });
});
