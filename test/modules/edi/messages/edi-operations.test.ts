import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedQuery } from '../../../../src/platform/operations/query-string.js';
import type { Operation } from '../../../../src/platform/operations/operation.js';
import { expectError } from '../../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { toolErrorOf } from '../../../support/operations.js';
import { clientKinds, listen, type McpTestClient } from '../../../mcp/support/mcp-clients.js';
import { readEdiFixture, seedEdiCatalog, seedPartners, submit, type SubmitBody } from '../edi-support.js';

/** The 4010 fixture with another ISA13 and PO number: a new interchange for each n. */
const interchange = (n: number): string =>
  readEdiFixture('po-4010-single.x12').replaceAll('000000101', String(n).padStart(9, '0')).replace('PO-1001', `PO-${n}`);

describe.each(dialects)('EDI operations: definitions, bad input, idempotency (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let mcp: McpTestClient;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await seedEdiCatalog(h, 'acme');
    await seedPartners(h, 'acme');
    key = (await h.key('acme', 'edi:read,edi:write,orders:read')).key;
    const kind = clientKinds[0];
    if (kind === undefined) throw new Error('no MCP client');
    mcp = await kind.connect(await listen(h), key);
  });
  afterAll(async () => {
    await mcp.close();
    await h.close();
  });

  const operation = (name: string): Operation => {
    const found = h.gateway.operations.find((e) => e.operation.name === name)?.operation;
    if (!found) throw new Error(`no operation ${name}`);
    return found;
  };
  const inboundCount = async (): Promise<number> =>
    (await h.gateway.database.db.selectFrom('edi_messages').select('id').where('direction', '=', 'inbound').execute()).length;
  const orderCount = async (): Promise<number> => (await h.gateway.database.db.selectFrom('orders').select('id').execute()).length;
  const keyed = (body: string, idempotencyKey: string) =>
    h.request({ method: 'POST', url: '/v1/edi', payload: body, key, headers: { 'content-type': 'text/plain', 'idempotency-key': idempotencyKey } });

  describe('definitions', () => {
    it('defines edi_submit, the message and the partner reads with honest hints', () => {
      const ops = h.gateway.operations.filter((e) => e.tag === 'edi').map((e) => e.operation);
      expect(ops.map((op) => [op.name, op.method, op.path, op.scope])).toEqual([
        ['edi_submit', 'POST', '/v1/edi', 'edi:write'],
        ['edi_messages_list', 'GET', '/v1/edi/messages', 'edi:read'],
        ['edi_messages_get', 'GET', '/v1/edi/messages/:id', 'edi:read'],
        ['edi_partners_list', 'GET', '/v1/edi/partners', 'edi:read'],
        ['edi_partners_get', 'GET', '/v1/edi/partners/:id', 'edi:read'],
      ]);
      expect(operation('edi_submit').hints).toEqual({ readOnly: false, destructive: false, idempotent: true, openWorld: true });
      expect(operation('edi_messages_list').hints.readOnly).toBe(true);
      expect(operation('edi_messages_get').hints.readOnly).toBe(true);
    });

    it('has examples valid against the schemas, and the submit example is what the gateway answers', async () => {
      for (const name of ['edi_submit', 'edi_messages_list', 'edi_messages_get', 'edi_partners_list', 'edi_partners_get']) {
        const op = operation(name);
        if (op.params) expect(op.params.safeParse(op.example.params ?? {}).error, name).toBeUndefined();
        if (op.query) expect(op.query.safeParse(typedQuery(op.query, op.example.query ?? {})).error, name).toBeUndefined();
        expect(op.output.safeParse(op.example.response).error, name).toBeUndefined();
      }
      const op = operation('edi_submit');
      expect(typeof op.example.body).toBe('string');
      const res = await submit(h, key, op.example.body as string);
      expect(res.statusCode, res.body).toBe(200);
      const id = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}_[0-9a-z]{26}$`)) as unknown;
      const example = op.example.response as unknown as SubmitBody;
      const { ok, ...answer } = res.json<SubmitBody & { ok: true }>();
      expect(ok).toBe(true);
      expect(answer).toEqual({
        ...example,
        message_id: id('msg'),
        partner: { ...example.partner, id: id('tp') },
        reply: { ...example.reply, message_id: id('msg') },
        documents: example.documents.map((d) => ({ ...d, order_id: id('ord') })),
      });
      const stored = await h.request({ method: 'GET', url: `/v1/edi/messages/${answer.message_id}?include=raw`, key });
      const message = stored.json<{ message: Record<string, unknown> }>().message;
      const { message: exampleMessage } = operation('edi_messages_get').example.response as { message: Record<string, unknown> };
      expect(message).toMatchObject({ x12: exampleMessage.x12, size: exampleMessage.size, sha256: exampleMessage.sha256, status: 'accepted' });
    });

    it('lists edi_submit on MCP with the interchange as the string argument x12, plus idempotency_key', async () => {
      const tools = await mcp.listTools();
      const tool = tools.find((t) => t.name === 'edi_submit');
      expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      const schema = tool?.inputSchema as { properties: Record<string, { type?: string }>; required?: string[]; additionalProperties?: unknown };
      expect(Object.keys(schema.properties).sort()).toEqual(['idempotency_key', 'x12']);
      expect(schema.properties.x12?.type).toBe('string');
      expect(schema.required).toEqual(['x12']);
      expect(schema.additionalProperties).toBe(false);
      const get = tools.find((t) => t.name === 'edi_messages_get');
      expect(Object.keys((get?.inputSchema as { properties: object }).properties)).toEqual(['id', 'include', 'raw_offset']);
    });
  });

  describe('bad input', () => {
    it('refuses unknown query parameters, on the list and on the by-id GET', async () => {
      expectError(await h.request({ method: 'GET', url: '/v1/edi/messages?bogus=1', key }), 400, 'invalid_input');
      expectError(await h.request({ method: 'GET', url: '/v1/edi/messages/msg_any?bogus=1', key }), 400, 'invalid_input');
      expectError(await h.request({ method: 'POST', url: '/v1/edi?bogus=1', key, payload: interchange(3001), headers: { 'content-type': 'text/plain' } }), 400, 'invalid_input');
    });

    it('refuses invisible and bidi characters in the message id and control characters in the partner filter', async () => {
      const bidi = expectError(await h.request({ method: 'GET', url: `/v1/edi/messages/${encodeURIComponent('msg_\u202eabc')}`, key }), 400, 'invalid_input');
      expect(bidi.error).toContain('U+202E');
      expectError(await h.request({ method: 'GET', url: `/v1/edi/messages/${encodeURIComponent('msg_\u200babc')}`, key }), 400, 'invalid_input');
      expectError(await h.request({ method: 'GET', url: `/v1/edi/messages?partner=${encodeURIComponent('Buyer\u0007Co')}`, key }), 400, 'invalid_input');
      const tool = await mcp.call('edi_messages_get', { id: 'msg_\u202eabc' });
      expect(tool.isError).toBe(true);
      expect(tool.structuredContent).toMatchObject({ code: 'invalid_input', status: 400 });
    });

    it('refuses an unknown MCP argument with the same details as REST refuses an unknown query parameter', async () => {
      const rest = expectError(await h.request({ method: 'GET', url: '/v1/edi/messages/msg_any?bogus=1', key }), 400, 'invalid_input');
      const get = await mcp.call('edi_messages_get', { id: 'msg_any', bogus: 1 });
      expect(get.isError).toBe(true);
      expect(get.structuredContent).toEqual(toolErrorOf(rest));
      const before = await inboundCount();
      const sub = await mcp.call('edi_submit', { x12: interchange(3002), bogus: 'x' });
      expect(sub.isError).toBe(true);
      expect(sub.structuredContent).toMatchObject({ code: 'invalid_input', status: 400 });
      expect(await inboundCount()).toBe(before);
    });

    it('refuses a missing or empty x12 argument before storing anything; a body that is not X12 is kept', async () => {
      const before = await inboundCount();
      for (const args of [{}, { x12: '' }]) {
        const res = await mcp.call('edi_submit', args);
        expect(res.isError).toBe(true);
        expect(res.structuredContent).toMatchObject({ code: 'invalid_input', status: 400, param: 'x12', message: 'invalid arguments: x12: the argument is required' });
      }
      expect(await inboundCount()).toBe(before);
      const notX12 = await mcp.call('edi_submit', { x12: 'hello' });
      expect(notX12.structuredContent).toMatchObject({ code: 'invalid_input', status: 400, details: { errors: [{ code: 'not_x12' }] } });
      expect(notX12.content[0]?.text).toMatch(/^invalid_input: not an X12 interchange: /);
      expect(await inboundCount()).toBe(before + 1);
    });
  });

  describe('idempotency keys', () => {
    it('REST: the same key and interchange replays without running again; another interchange under it is refused', async () => {
      const text = interchange(3101);
      const first = await keyed(text, 'edi-rest-1');
      expect(first.statusCode, first.body).toBe(200);
      const inbound = await inboundCount();
      const again = await keyed(text, 'edi-rest-1');
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      // Replayed from the key: not even a `duplicate` entry in the message log.
      expect(await inboundCount()).toBe(inbound);
      expectError(await keyed(interchange(3102), 'edi-rest-1'), 422, 'idempotency_key_reused');
    });

    it('MCP: idempotency_key replays, and is the same key as REST Idempotency-Key', async () => {
      const text = interchange(3201);
      const first = await mcp.call('edi_submit', { x12: text, idempotency_key: 'edi-mcp-1' });
      expect(first.isError, JSON.stringify(first)).toBeFalsy();
      const inbound = await inboundCount();
      const orders = await orderCount();
      const again = await mcp.call('edi_submit', { x12: text, idempotency_key: 'edi-mcp-1' });
      expect(again.structuredContent).toEqual(first.structuredContent);
      const rest = await keyed(text, 'edi-mcp-1');
      expect(rest.headers['idempotent-replayed']).toBe('true');
      const { ok, ...body } = rest.json<Record<string, unknown>>();
      expect(ok).toBe(true);
      expect(body).toEqual(first.structuredContent);
      expect([await inboundCount(), await orderCount()]).toEqual([inbound, orders]);
    });

    it('a keyed 422 replays with its details', async () => {
      const text = readEdiFixture('missing-beg.x12').replaceAll('000001010', '000003301');
      const first = expectError(await keyed(text, 'edi-422'), 422, 'interchange_rejected');
      const again = await keyed(text, 'edi-422');
      expect(again.headers['idempotent-replayed']).toBe('true');
      const replayed = expectError(again, 422, 'interchange_rejected');
      expect(replayed.details).toEqual(first.details);
    });
  });

  describe('across a crash after commit', () => {
    /** edi_submit dies right after it settled (success or refusal), before answering: the client sees a 500. */
    const crash = async (text: string, idempotencyKey: string) => {
      h.crashAfterCommit('edi_submit');
      expect((await keyed(text, idempotencyKey)).statusCode).toBe(500);
    };

    it('a retried accepted interchange replays the committed answer: one order, one message', async () => {
      const text = interchange(3401);
      const orders = await orderCount();
      const inbound = await inboundCount();
      await crash(text, 'edi-crash-ok');
      const retry = await keyed(text, 'edi-crash-ok');
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      const answer = retry.json<SubmitBody>();
      expect(answer.documents[0]).toMatchObject({ status: 'accepted', po_number: 'PO-3401' });
      expect([await orderCount(), await inboundCount()]).toEqual([orders + 1, inbound + 1]);
      const stored = await h.request({ method: 'GET', url: `/v1/edi/messages/${answer.message_id}?include=raw`, key });
      expect(stored.json<{ message: { status: string } }>().message.status).toBe('accepted');
    });

    it('a retried 422 gets the stored answer of the interchange, with the same details', async () => {
      const text = readEdiFixture('missing-beg.x12').replaceAll('000001010', '000003501');
      const orders = await orderCount();
      await crash(text, 'edi-crash-422');
      const retry = expectError(await keyed(text, 'edi-crash-422'), 422, 'interchange_rejected');
      const details = retry.details as SubmitBody;
      expect(details.documents.map((d) => d.status)).toEqual(['rejected']);
      expect(await orderCount()).toBe(orders);
      // The resend found the interchange's stored answer: the original message, not a second processing.
      const original = await h.request({ method: 'GET', url: `/v1/edi/messages/${details.message_id}?include=raw`, key });
      expect(original.json<{ message: { status: string } }>().message.status).toBe('rejected');
    });

    it('a retried partial interchange (one set refused) replays its 200: one order', async () => {
      const text = readEdiFixture('se-count-wrong.x12').replaceAll('000000808', '000003601').replace('PO-809', 'PO-3601');
      const orders = await orderCount();
      await crash(text, 'edi-crash-partial');
      const retry = await keyed(text, 'edi-crash-partial');
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      const answer = retry.json<SubmitBody>();
      expect(answer.status).toBe('partial');
      expect(answer.documents.map((d) => [d.po_number, d.status])).toEqual([['PO-808', 'rejected'], ['PO-3601', 'accepted']]);
      expect(await orderCount()).toBe(orders + 1);
    });
  });
});
