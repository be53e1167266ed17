import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_SLICE_BYTES } from '../../../../src/modules/edi/messages/messages.schemas.js';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { callMcp } from '../../../support/operations.js';
import { readEdiFixture, seedEdiCatalog, seedPartners, submit, type SubmitBody } from '../edi-support.js';

interface Detail {
  size: number;
  x12?: string;
  raw: { size: number; included: boolean; offset: number; length: number; next_offset: number | null };
}

describe.each(dialects)('edi_messages_get leaves the raw interchange out unless asked (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let small: { id: string; x12: string };

  /** A body that is not X12 is still stored byte for byte: a large message without building a large interchange. */
  const storeBody = async (body: Buffer): Promise<string> => {
    const res = await submit(h, key, body);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    return res.json<{ details: { message_id: string } }>().details.message_id;
  };
  const detail = async (id: string, query = ''): Promise<Detail> => {
    const res = await h.request({ method: 'GET', url: `/v1/edi/messages/${id}${query}`, key });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return res.json<{ message: Detail }>().message;
  };

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    await seedPartners(h, 'acme');
    key = (await h.key('acme', 'edi:read,edi:write')).key;
    const x12 = readEdiFixture('po-4010-single.x12');
    small = { id: (await submit(h, key, x12)).json<SubmitBody>().message_id, x12 };
  });
  afterAll(() => h.close());

  it('shows the size without the X12 by default, on REST and MCP alike', async () => {
    const bytes = Buffer.byteLength(small.x12);
    const rest = await detail(small.id);
    expect(rest.x12).toBeUndefined();
    expect(rest.raw).toEqual({ size: bytes, included: false, offset: 0, length: 0, next_offset: null });
    const tool = await callMcp(h, 'edi_messages_get', { id: small.id }, key);
    expect((tool.payload as { message: Detail }).message).toEqual(rest);
  });

  it('adds the X12 with include=raw, on REST and MCP alike', async () => {
    const bytes = Buffer.byteLength(small.x12);
    const rest = await detail(small.id, '?include=raw');
    expect(rest.x12).toBe(small.x12);
    expect(rest.raw).toEqual({ size: bytes, included: true, offset: 0, length: bytes, next_offset: null });
    const tool = await callMcp(h, 'edi_messages_get', { id: small.id, include: 'raw' }, key);
    expect((tool.payload as { message: Detail }).message).toEqual(rest);
  });

  it(`caps the X12 at ${RAW_SLICE_BYTES} bytes an answer and reads the rest from raw.next_offset`, async () => {
    const body = Buffer.from(`NOT-X12 ${'0123456789'.repeat(60_000)}`);
    const id = await storeBody(body);
    const first = await detail(id, '?include=raw');
    expect(first.raw).toEqual({ size: body.length, included: true, offset: 0, length: RAW_SLICE_BYTES, next_offset: RAW_SLICE_BYTES });
    expect(first.x12).toHaveLength(RAW_SLICE_BYTES);
    const second = await detail(id, `?include=raw&raw_offset=${RAW_SLICE_BYTES}`);
    expect(second.raw).toEqual({ size: body.length, included: true, offset: RAW_SLICE_BYTES, length: body.length - RAW_SLICE_BYTES, next_offset: null });
    expect(`${first.x12 ?? ''}${second.x12 ?? ''}`).toBe(body.toString('latin1'));
    const tool = await callMcp(h, 'edi_messages_get', { id, include: 'raw', raw_offset: RAW_SLICE_BYTES }, key);
    expect((tool.payload as { message: Detail }).message).toEqual(second);
  });

  it('never splits a UTF-8 character between two parts, and refuses an offset inside one', async () => {
    // 'a' then two-byte characters: the cap falls on the second byte of one, so the first part stops before it.
    const body = Buffer.from(`a${'é'.repeat(300_000)}`);
    const id = await storeBody(body);
    const first = await detail(id, '?include=raw');
    expect(first.raw.length).toBe(RAW_SLICE_BYTES - 1);
    expect(first.raw.next_offset).toBe(RAW_SLICE_BYTES - 1);
    const second = await detail(id, `?include=raw&raw_offset=${RAW_SLICE_BYTES - 1}`);
    expect(`${first.x12 ?? ''}${second.x12 ?? ''}`).toBe(body.toString('utf8'));
    const inside = expectError(await h.request({ method: 'GET', url: `/v1/edi/messages/${id}?include=raw&raw_offset=${RAW_SLICE_BYTES}`, key }), 400, 'invalid_input');
    expect(inside.error).toMatch(/inside a character/);
  });

  it.each([
    ['an unknown include', '?include=body', /include must be raw/],
    ['an empty include', '?include=', /include must be raw/],
    ['raw_offset without include=raw', '?raw_offset=0', /raw_offset needs include=raw/],
    ['a negative raw_offset', '?include=raw&raw_offset=-1', /raw_offset/],
    ['a raw_offset that is not a number', '?include=raw&raw_offset=ten', /raw_offset/],
    ['a raw_offset past the end', '?include=raw&raw_offset=99999999', /past the end/],
  ])('refuses %s with a 400 on REST and MCP', async (_label, query, message) => {
    const rest = expectError(await h.request({ method: 'GET', url: `/v1/edi/messages/${small.id}${query}`, key }), 400, 'invalid_input');
    expect(JSON.stringify(rest)).toMatch(message);
    const args = Object.fromEntries(new URLSearchParams(query.slice(1)));
    const tool = await callMcp(h, 'edi_messages_get', { id: small.id, ...args }, key);
    expect(tool).toMatchObject({ isError: true, status: 400 });
  });

  it('refuses include given twice in the query string', async () => {
    expectError(await h.request({ method: 'GET', url: `/v1/edi/messages/${small.id}?include=raw&include=raw`, key }), 400, 'invalid_input');
  });
});
