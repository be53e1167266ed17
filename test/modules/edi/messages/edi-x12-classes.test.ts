import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness } from '../../../support/harness.js';
import { buyerInterchange as interchange, replySet, set850, startEdiHarness, submit, type SubmitBody } from '../edi-support.js';

describe.each(dialects)('POST /v1/edi: control numbers reused inside an interchange (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const orderExists = async (po: string) => (await h.request({ method: 'GET', url: `/v1/orders/${po}`, key })).statusCode === 200;
  const ackBody = (answer: SubmitBody, i = 0): string[] => replySet(answer, i);

  it('two 850s sharing ST02: the first makes its order, the second is refused (AK5 R 23)', async () => {
    const res = await submit(h, key, interchange(9101, [{ control: '910', sets: [set850('0001', 'PO-REUSE-1'), set850('0001', 'PO-REUSE-2')] }]));
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<SubmitBody>();
    expect(answer.status).toBe('partial');
    expect(answer.documents.map((d) => [d.po_number, d.status])).toEqual([
      ['PO-REUSE-1', 'accepted'],
      ['PO-REUSE-2', 'rejected'],
    ]);
    expect(ackBody(answer)).toEqual(['AK1*PO*910', 'AK2*850*0001', 'AK5*A', 'AK2*850*0001', 'AK5*R*23', 'AK9*P*2*2*1']);
    expect(await orderExists('PO-REUSE-1')).toBe(true);
    expect(await orderExists('PO-REUSE-2')).toBe(false);
  });

  it('two groups sharing GS06: the first group is processed, the later one rejected', async () => {
    const res = await submit(h, key, interchange(9102, [
      { control: '920', sets: [set850('0001', 'PO-GREUSE-1')] },
      { control: '920', sets: [set850('0001', 'PO-GREUSE-2')] },
    ]));
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<SubmitBody & { errors: { code: string; position?: number }[] }>();
    expect(answer.status).toBe('partial');
    expect(answer.acknowledgments.map((a) => a.code)).toEqual(['A', 'R']);
    expect(answer.errors.map((e) => [e.code, e.position])).toEqual([['AK905:19', 12]]);
    expect(await orderExists('PO-GREUSE-1')).toBe(true);
    expect(await orderExists('PO-GREUSE-2')).toBe(false);
  });
});

/** The body as one line per `width` characters: a VAN's 80- or 132-column wrapping. */
function wrap(text: string, width: number, eol: string): string {
  const flat = text.replace(/~\r?\n/g, '~');
  const lines: string[] = [];
  for (let i = 0; i < flat.length; i += width) lines.push(flat.slice(i, i + width));
  return lines.join(eol) + eol;
}

describe.each(dialects)('POST /v1/edi: files wrapped at 80 or 132 columns (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const orderExists = async (po: string) => (await h.request({ method: 'GET', url: `/v1/orders/${po}`, key })).statusCode === 200;
  const rawOf = async (id: string): Promise<string> => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages/${id}?include=raw`, key });
    expect(res.statusCode).toBe(200);
    return res.json<{ message: { x12: string } }>().message.x12;
  };

  it.each([
    [80, '\r\n', 9201],
    [80, '\n', 9202],
    [132, '\r\n', 9203],
    [132, '\n', 9204],
  ])('one interchange wrapped at %i with %j: orders made, 997 accepted, bytes kept as received', async (width, eol, isa13) => {
    const po = `PO-WRAP-${isa13}`;
    const body = wrap(interchange(isa13, [{ control: String(isa13), sets: [set850('0001', po), set850('0002', `${po}-B`)] }]), width, eol);
    expect(body.split(eol)[0]?.length).toBe(width);
    const res = await submit(h, key, body);
    expect(res.statusCode, res.body.slice(0, 2000)).toBe(200);
    const answer = res.json<SubmitBody>();
    expect(answer.documents.map((d) => [d.po_number, d.status])).toEqual([
      [po, 'accepted'],
      [`${po}-B`, 'accepted'],
    ]);
    expect(answer.acknowledgments.map((a) => a.code)).toEqual(['A']);
    expect(await orderExists(po)).toBe(true);
    expect(await orderExists(`${po}-B`)).toBe(true);
    expect(await rawOf(answer.message_id)).toBe(body);
  });

  it.each([80, 132])('several interchanges wrapped together at %i: each taken, each stored as its own slice of the body', async (width) => {
    const texts = [1, 2, 3].map((n) => interchange(9300 + width + n, [{ control: String(n), sets: [set850('0001', `PO-WRAPS-${width}-${n}`)] }]));
    const body = wrap(texts.join(''), width, '\r\n');
    const res = await submit(h, key, body);
    expect(res.statusCode, res.body.slice(0, 2000)).toBe(200);
    const answer = res.json<SubmitBody & { interchanges: { message_id: string; control_number: string; status: number }[] }>();
    expect(answer.interchanges.map((e) => [e.control_number, e.status])).toEqual([1, 2, 3].map((n) => [String(9300 + width + n).padStart(9, '0'), 200]));
    expect(answer.acknowledgments.map((a) => a.code)).toEqual(['A', 'A', 'A']);
    for (const n of [1, 2, 3]) expect(await orderExists(`PO-WRAPS-${width}-${n}`)).toBe(true);
    const slices = await Promise.all(answer.interchanges.map((e) => rawOf(e.message_id)));
    expect(slices.join('')).toBe(body);
    for (const slice of slices.slice(1)) expect(slice.replace(/[\r\n]/g, '').startsWith('ISA*')).toBe(true);
  });
});
