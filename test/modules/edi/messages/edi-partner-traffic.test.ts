import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseX12 } from '../../../../src/modules/edi/x12/x12.parser.js';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness } from '../../../support/harness.js';
import { type EdiErrorBody, readBack, readEdiFixture, startEdiHarness, submit, type SubmitBody, submitOk } from '../edi-support.js';
import { expectConsistent997 } from '../x12/x12.ack-checks.js';

type Unprocessable = SubmitBody & { errors: (EdiErrorBody & { value?: string })[] };

const PO = readEdiFixture('po-4010-single.x12');

/** The fixture under another ISA13 and PO number, so each case is a new interchange and a new order. */
function variant(control: number, po: string): string {
  const isa13 = String(control).padStart(9, '0');
  return PO.replaceAll('000000101', isa13).replace('PO-1001', po);
}

/** Body segments of a 997 as element arrays with the id first. */
function ackSegments(x12: string | undefined): string[][] {
  const { interchange } = readBack(x12 ?? '');
  return (interchange.groups[0]?.transactionSets[0]?.segments ?? []).slice(1, -1).map((s) => [s.id, ...s.elements]);
}

describe.each(dialects)('POST /v1/edi with partner traffic (%s)', (dialect) => {
  let h: Harness;
  let key: string;

  beforeAll(async () => {
    ({ h, key } = await startEdiHarness(dialect));
  });
  afterAll(() => h.close());

  const ok = (body: string | Buffer): Promise<SubmitBody> => submitOk(h, key, body);
  const unprocessable = async (body: string | Buffer): Promise<{ details: Unprocessable; size: number; message: string }> => {
    const res = await submit(h, key, body);
    const error = expectError(res, 422, 'interchange_rejected');
    return { details: error.details as Unprocessable, size: res.body.length, message: String(error.error) };
  };

  it.each([
    ['00200', 701],
    ['00300', 702],
    ['00402', 703],
    ['00601', 704],
    ['00801', 705],
  ])('takes an 850 in an ISA12 %s interchange', async (version, control) => {
    const separator = version >= '00402' ? '^' : 'U';
    const result = await ok(variant(control, `PO-V${control}`).replace('*U*00401*', `*${separator}*${version}*`));
    expect(result.documents).toMatchObject([{ status: 'accepted', po_number: `PO-V${control}` }]);
    expect(result.acknowledgments.map((a) => a.code)).toEqual(['A']);
  });

  it.each([
    ['"~ \\n"', (t: string) => t.replaceAll('~\r\n', '~ \n'), 711],
    ['"~\\r\\n" with indentation', (t: string) => t.replaceAll('~\r\n', '~\r\n    '), 712],
    ['one line with spaces between segments', (t: string) => t.replaceAll('~\r\n', '~  '), 713],
  ])('takes an 850 laid out with %s', async (_, layout, control) => {
    const result = await ok(layout(variant(control, `PO-W${control}`)));
    expect(result.documents).toMatchObject([{ status: 'accepted', po_number: `PO-W${control}` }]);
    expect(ackSegments(result.reply?.x12).map((s) => s.join('*'))).toEqual(['AK1*PO*101', 'AK2*850*0001', 'AK5*A', 'AK9*A*1*1*1']);
  });

  it.each([
    ['a Canadian postal code with its space', (t: string) => t.replace('N4*Springfield*IL*62701*US~', 'N4*VANCOUVER*BC*V6B 5J4*CA~'), 751],
    ['a ZIP+4 with its hyphen', (t: string) => t.replace('N4*Springfield*IL*62701*US~', 'N4*TORRANCE*CA*90501-1234*US~'), 752],
    ['a GS08 release after 008010', (t: string) => t.replace('*X*004010~', '*X*008020~'), 753],
    ['lines in PC (piece) and UN (unit)', (t: string) => t.replace('PO1*1*4*EA*', 'PO1*1*4*PC*').replace('PO1*2*1*EA*', 'PO1*2*1*UN*'), 755],
  ])('takes an 850 with %s', async (_, change, control) => {
    const result = await ok(change(variant(control, `PO-P${control}`)));
    expect(result.documents).toMatchObject([{ status: 'accepted', po_number: `PO-P${control}` }]);
    expect(result.acknowledgments.map((a) => a.code)).toEqual(['A']);
  });

  it('still refuses a lower-case code where X12 itself defines the codes (PO103 ea)', async () => {
    const { details } = await unprocessable(variant(754, 'PO-P754').replace('PO1*1*4*EA*', 'PO1*1*4*ea*'));
    expect(details.errors.map((e) => [e.code, e.segment_id, e.element])).toContainEqual(['AK403:7', 'PO1', 3]);
  });

  it('a 10 MB NTE and binary bytes give a small 422 with capped, clean echoes and a clean 997', async () => {
    const text = variant(721, 'PO-E721')
      .replace('NTE*GEN*Deliver to the back door~', `NTE*GEN*${'N'.repeat(9_000_000)}~`)
      .replace('REF*DP*042~', 'REF*DP*042\u0001\u00ff  ~');
    const { details, size, message } = await unprocessable(Buffer.from(text, 'latin1'));
    expect(size).toBeLessThan(50_000);
    expect(message.length).toBeLessThan(2_000);
    for (const e of details.errors) {
      expect(e.message.length).toBeLessThanOrEqual(321);
      if (e.value !== undefined) expect(e.value.length).toBeLessThanOrEqual(81);
    }
    expect(details.errors.find((e) => e.segment_id === 'NTE')?.value).toBe(`${'N'.repeat(80)}…`);
    const body = ackSegments(details.reply?.x12);
    for (const segment of body) for (const value of segment) expect(value).toMatch(/^([\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?)?$/);
    expectConsistent997(body);
  });

  it('a 10 MB GS03 and GS06 are cut in the 997 and the JSON', async () => {
    const text = variant(722, 'PO-E722').replace('GS*PO*BUYERCO*TIREGW*20260601*1200*101*', `GS*PO*BUYERCO*${'T'.repeat(5_000_000)}*20260601*1200*${'9'.repeat(4_000_000)}*`);
    const { details, size } = await unprocessable(text);
    expect(size).toBeLessThan(50_000);
    const ack = details.acknowledgments[0];
    expect(ack?.group).toBe(`${'9'.repeat(80)}…`);
    expect(details.reply?.x12?.length).toBeLessThan(2_000);
    const parsed = parseX12(details.reply?.x12 ?? '');
    expect(parsed.ok && parsed.interchange.groups[0]?.gs[1]).toBe('T'.repeat(15));
    expectConsistent997(ackSegments(details.reply?.x12));
  });

  it.each([
    ['a 105-character ISA', (t: string) => t.replace('*BUYERCO        *', '*BUYERCO       *'), 731],
    ['content after the IEA', (t: string) => `${t}JUNK*1~\r\n`, 732],
  ])('%s: every set AK5 R, AK9 R with an AK905 code, nothing taken', async (_, mutate, control) => {
    const { details } = await unprocessable(mutate(variant(control, `PO-X${control}`)));
    expect(details.documents).toMatchObject([{ status: 'rejected' }]);
    expect(details.errors.map((e) => e.code)).toContain('interchange_rejected');
    const body = ackSegments(details.reply?.x12);
    expectConsistent997(body);
    expect(body.map((s) => s.join('*'))).toEqual(['AK1*PO*101', 'AK2*850*0001', 'AK5*R', 'AK9*R*1*1*0*1']);
  });

  // The 997s are written a few multi-row statements at a time, so both dialects take the full 40,000 groups.
  const many = 40_000;

  it(`${many} one-set groups finish while /healthz keeps answering on a real listener`, async () => {
    const isa = PO.split('\r\n')[0] ?? '';
    const parts = [isa.replace('000000101', '000000741')];
    for (let g = 1; g <= many; g++) parts.push(`GS*PO*BUYERCO*TIREGW*20260601*1200*${g}*X*004010~ST*850*0001~SE*2*0001~GE*1*${g}~`);
    parts.push(`IEA*${many}*000000741~`);
    const body = parts.join('\n');
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    let done = false;
    const post = fetch(`${address}/v1/edi`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, body }).finally(() => {
      done = true;
    });
    // Health checks run while the interchange is being processed: at least one must be answered before the POST ends.
    let answeredDuring = 0;
    while (!done) {
      const health = await fetch(`${address}/healthz`);
      expect(health.status).toBe(200);
      if (!done) answeredDuring++;
    }
    const res = await post;
    expect(res.status).toBe(422);
    const error = (await res.json()) as { details: Unprocessable };
    // The answer is bounded: 1,000 acknowledgments, documents and findings at most, the rest counted and kept on the message.
    expect(error.details.acknowledgments).toHaveLength(1000);
    expect(error.details.documents).toHaveLength(1000);
    expect(error.details.acknowledgments.every((a) => a.code === 'R')).toBe(true);
    expect(error.details.errors).toHaveLength(1000);
    expect(error.details.documents.every((d) => d.errors === undefined)).toBe(true);
    expect(error.details.omitted).toEqual({ message_id: error.details.message_id, documents: many - 1000, acknowledgments: many - 1000, findings: expect.any(Number) as unknown });
    expect(error.details.omitted?.findings).toBeGreaterThanOrEqual(many - 1000);
    // One reply interchange for all 40,000 groups: too large to answer inline, read from its message.
    const reply = error.details.reply;
    expect(reply?.x12).toBeUndefined();
    expect(reply?.size).toBeGreaterThan(512 * 1024);
    // Read in parts, as large as one answer carries, each from the previous part's next_offset.
    let x12 = '';
    let reads = 0;
    for (let offset: number | null = 0; offset !== null; reads++) {
      const stored = await fetch(`${address}/v1/edi/messages/${reply?.message_id}?include=raw&raw_offset=${offset}`, { headers: { authorization: `Bearer ${key}` } });
      const { message } = (await stored.json()) as { message: { x12: string; raw: { size: number; next_offset: number | null } } };
      expect(message.raw.size).toBe(reply?.size);
      x12 += message.x12;
      offset = message.raw.next_offset;
    }
    expect(reads).toBe(Math.ceil((reply?.size ?? 0) / (512 * 1024)));
    expect(x12.match(/^ISA\*/gm)).toHaveLength(1);
    expect(x12.match(/^ST\*997\*/gm)).toHaveLength(many);
    expect(x12.match(/^GS\*FA\*/gm)).toHaveLength(1);
    expect(answeredDuring).toBeGreaterThan(0);
  }, 120_000);
});
