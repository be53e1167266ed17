import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../src/platform/core/errors.js';
import { findDuplicateKey } from '../../../src/platform/http/json-body.js';
import { errorEnvelope } from '../../../src/platform/http/envelope.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { callMcp } from '../../support/operations.js';
import { fitments } from '../../modules/objects/fixtures.js';

const root = new URL('../../../', import.meta.url).pathname;
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
/** An array nested 3,000 deep: deeper than a recursive walk of the input should ever go. */
const deep = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('the error reference', () => {
  it('has an anchor in docs/errors.md for every code, with its status', () => {
    const page = readFileSync(`${root}docs/errors.md`, 'utf8');
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(page, code).toMatch(new RegExp(`<a id="${code}"></a>\\n### \`${code}\` \\(${status}\\)`));
    }
  });

  it('finds the first repeated key of JSON text by its path, however deep, escapes decoded', () => {
    expect(findDuplicateKey('{"stock_qty":6,"stock_qty":-5}')).toEqual(['stock_qty']);
    expect(findDuplicateKey('{"lines":[{"sku":"a"},{"sku":"b","q":1,"\\u0071":2}]}')).toEqual(['lines', 1, 'q']);
    expect(findDuplicateKey('{"a":{"b":1},"c":{"b":1},"s":"{\\"x\\":1,\\"x\\":2}"}')).toBeUndefined();
    expect(findDuplicateKey(`${'['.repeat(5000)}{"k":1,"k":2}${']'.repeat(5000)}`)).toEqual([...Array.from({ length: 5000 }, () => 0), 'k']);
  });
});

describe.each(dialects)('errors a client can branch on (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
    await h.gateway.services.objects.define('acme', fitments);
    key = (await h.key('acme', 'all,objects:fitments:read,objects:fitments:write', { rateLimit: 100_000 })).key;
    expect((await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku: 'TIRE-1', name: 'Tire', stock_qty: 5 } })).statusCode).toBe(201);
  });
  afterAll(() => h.close());

  const post = (url: string, payload: unknown, idempotencyKey?: string) =>
    h.request({ method: 'POST', url, key, payload: payload as Record<string, unknown>, ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}) });
  const order = (po: string, sku: string) => ({ po_number: po, ship_to: 'Depot 1', lines: [{ sku: 'TIRE-1', quantity: 1, unit_price: '10' }, { sku, quantity: 1, unit_price: '10' }] });

  it('every error body matches the Error schema of its code, with a doc_url to its anchor', async () => {
    const bodies = [
      expectError(await post('/v1/orders', order('PO-E1', 'NOPE')), 422, 'unknown_sku'),
      expectError(await post('/v1/products', { sku: 'x', name: 'y', zz: 1 }), 400, 'invalid_input'),
      expectError(await h.request({ method: 'GET', url: '/v1/nowhere', key }), 404, 'not_found'),
    ];
    for (const body of bodies) {
      expect(errorEnvelope.safeParse(body).error).toBeUndefined();
      expect(body.doc_url).toBe(`docs/errors.md#${String(body.code)}`);
    }
  });

  it('one unknown SKU is 422 unknown_sku on orders, warranty claims and their tools, naming the field in param', async () => {
    const onOrder = expectError(await post('/v1/orders', order('PO-E2', 'NOPE')), 422, 'unknown_sku');
    expect(onOrder).toMatchObject({ param: 'lines[1].sku', details: [{ path: 'lines.1.sku', index: 1, sku: 'NOPE', code: 'unknown_sku' }] });
    const onClaim = expectError(await post('/v1/warranty-claims', { description: 'Bulge', sku: 'NOPE' }), 422, 'unknown_sku');
    expect(onClaim).toMatchObject({ param: 'sku' });
    const tool = await callMcp(h, 'warranty_claims_create', { description: 'Bulge', sku: 'NOPE' }, key);
    expect(tool.payload).toMatchObject({ code: 'unknown_sku', status: 422, param: 'sku', doc_url: 'docs/errors.md#unknown_sku' });
  });

  it('a reused Idempotency-Key is idempotency_key_reused naming the header (REST) or the argument (MCP)', async () => {
    expect((await post('/v1/orders', order('PO-E3', 'TIRE-1'), 'reuse-1')).statusCode).toBe(201);
    const reused = expectError(await post('/v1/orders', order('PO-E4', 'TIRE-1'), 'reuse-1'), 422, 'idempotency_key_reused');
    expect(reused.param).toBe('Idempotency-Key');
    const tool = await callMcp(h, 'orders_create', { ...order('PO-E5', 'TIRE-1'), idempotency_key: 'reuse-1' }, key);
    expect(tool.payload).toMatchObject({ code: 'idempotency_key_reused', status: 422, param: 'idempotency_key' });
  });

  it('a refused order move is invalid_transition with requested, status and allowed, the allowed states in the message', async () => {
    expect((await post('/v1/orders', order('PO-E6', 'TIRE-1'))).statusCode).toBe(201);
    const res = await h.request({ method: 'PATCH', url: '/v1/orders/PO-E6/status', key, payload: { status: 'delivered' } });
    const body = expectError(res, 409, 'invalid_transition');
    expect(body).toMatchObject({ param: 'status', details: { requested: 'delivered', status: 'submitted', allowed: ['confirmed', 'cancelled'] } });
    expect(body.error).toBe('order PO-E6 cannot move from submitted to delivered (allowed: confirmed, cancelled)');
  });

  it('a validation error names the field in param, an unknown key included', async () => {
    const unknown = expectError(await post('/v1/products', { sku: 'x', name: 'y', zz: 1 }), 400, 'invalid_input');
    expect(unknown).toMatchObject({ param: 'zz', details: [{ path: 'zz', message: 'is unknown' }] });
    const bad = expectError(await h.request({ method: 'GET', url: '/v1/orders?limit=0', key }), 400, 'invalid_input');
    expect(bad.param).toBe('limit');
  });

  describe('over MCP, in MCP words', () => {
    it('says "invalid arguments" and names the argument, an unknown one included', async () => {
      const wrong = await callMcp(h, 'orders_list', { status: 'lost' }, key);
      expect(wrong.text).toMatch(/^invalid_input: invalid arguments: status: /);
      expect(wrong.payload).toMatchObject({ param: 'status', details: [{ path: 'status' }] });
      const unknown = await callMcp(h, 'orders_list', { colour: 'red' }, key);
      expect(unknown.text).toBe('invalid_input: invalid arguments: colour: is unknown');
      expect(unknown.payload).toMatchObject({ param: 'colour', details: [{ path: 'colour', message: 'is unknown' }] });
    });

    it('edi_submit without x12 says the argument is missing', async () => {
      const missing = await callMcp(h, 'edi_submit', {}, key);
      expect(missing.text).toBe('invalid_input: invalid arguments: x12: the argument is required');
      expect(missing.payload).toMatchObject({ code: 'invalid_input', param: 'x12' });
    });
  });

  describe('hostile bodies', () => {
    it('refuses a repeated JSON key with a 400 naming it, and stores nothing', async () => {
      const res = await h.request({ method: 'PATCH', url: '/v1/products/TIRE-1', key, headers: { 'content-type': 'application/json' }, payload: '{"stock_qty":6,"stock_qty":-5}' });
      const body = expectError(res, 400, 'invalid_input');
      expect(body).toMatchObject({ param: 'stock_qty', error: 'body.stock_qty: the key appears more than once (a JSON object must not repeat a key)' });
      const product = (await h.request({ method: 'GET', url: '/v1/products/TIRE-1', key })).json<{ product: { stock_qty: number } }>();
      expect(product.product.stock_qty).toBe(5);
    });

    it('refuses a repeated key in a JSON-RPC body at the MCP door too', async () => {
      const payload = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"products_update","arguments":{"sku":"TIRE-1","stock_qty":6,"stock_qty":-5}}}';
      const res = await h.request({ method: 'POST', url: '/mcp', key, headers: MCP_HEADERS, payload });
      expect(expectError(res, 400, 'invalid_input').param).toBe('params.arguments.stock_qty');
    });

    it('answers a 3,000-deep array in an object row with the same 400 with an Idempotency-Key as without, on both doors', async () => {
      const rows = [{ fitment_id: 'D1', make: deep(3000) }];
      const plain = expectError(await post('/v1/objects/fitments', { rows }), 400, 'invalid_input');
      const keyed = expectError(await post('/v1/objects/fitments', { rows }, 'deep-1'), 400, 'invalid_input');
      expect(plain.error).toMatch(/^body\.rows\.0\.make\.0\.0(\.0)*: nested deeper than 64 levels$/);
      expect(keyed.error).toBe(plain.error);
      expect(keyed.param).toMatch(/^rows\[0\]\.make(\[0\])+$/);
      const tool = await callMcp(h, 'objects_write', { object: 'fitments', rows, idempotency_key: 'deep-2' }, key);
      expect(tool.payload).toMatchObject({ code: 'invalid_input', status: 400, param: keyed.param });
      expect(tool.text).toMatch(/^invalid_input: arguments\.rows\.0\.make(\.0)+: nested deeper than 64 levels$/);
    });
  });
});
