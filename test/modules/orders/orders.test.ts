import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { clientKinds, listen, type McpTestClient } from '../../mcp/support/mcp-clients.js';
import { expectError, itChecksAuth } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { toolErrorOf } from '../../support/operations.js';
import { type OrderBody, orderPayload, seedCatalog } from './orders-support.js';

describe.each(dialects)('orders (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;
  let rw: string;
  let ro: string;
  let otherOrg: string;
  let mcpClient: McpTestClient | undefined;
  let poSeq = 0;
  const nextPo = () => `PO-${++poSeq}`;

  beforeAll(async () => {
    sim = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: sim.url } });
    await seedCatalog(h, 'acme');
    await seedCatalog(h, 'globex');
    rw = (await h.key('acme', 'orders:read,orders:write')).key;
    ro = (await h.key('acme', 'orders:read')).key;
    otherOrg = (await h.key('globex', 'orders:read,orders:write')).key;
  });
  afterAll(async () => {
    await mcpClient?.close();
    await h.close();
    await sim.close();
  });
  beforeEach(async () => {
    await sim.reset();
  });

  /** An order as EDI creates one: in a transaction of its own here. */
  const ediOrder = (orgId: string, input: Parameters<Harness['gateway']['services']['orders']['create']>[3]) =>
    h.gateway.database.db.transaction().execute((tx) => h.gateway.services.orders.create(tx, orgId, 'edi', input));
  const create = (payload: unknown, key = rw, headers: Record<string, string> = {}) =>
    h.request({ method: 'POST', url: '/v1/orders', payload: payload as object, key, headers });
  const createOk = async (payload: unknown = orderPayload(nextPo()), key = rw): Promise<OrderBody> => {
    const res = await create(payload, key);
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ order: OrderBody }>().order;
  };
  const get = (ref: string, key = rw) => h.request({ method: 'GET', url: `/v1/orders/${encodeURIComponent(ref)}`, key });
  const patch = (ref: string, status: unknown, key = rw) =>
    h.request({ method: 'PATCH', url: `/v1/orders/${encodeURIComponent(ref)}/status`, payload: { status }, key });
  const ack = (ref: string, key = rw) => h.request({ method: 'POST', url: `/v1/orders/${encodeURIComponent(ref)}/ack`, key });
  /** One MCP client (the v2 SDK over HTTP) on the orders key, connected on first use. */
  const mcp = () => {
    if (!mcpClient) throw new Error('call connectMcp() first');
    return mcpClient;
  };
  const connectMcp = async () => {
    const kind = clientKinds[0];
    if (!kind) throw new Error('no MCP client kind');
    mcpClient ??= await kind.connect(await listen(h), rw);
  };

  describe('auth', () => {
    itChecksAuth(() => h, { method: 'GET', url: '/v1/orders', scope: 'orders:read' });
    itChecksAuth(() => h, { method: 'GET', url: '/v1/orders/ANY', scope: 'orders:read' });
    itChecksAuth(() => h, { method: 'POST', url: '/v1/orders', scope: 'orders:write', payload: orderPayload('AUTH-1') });
    itChecksAuth(() => h, { method: 'POST', url: '/v1/orders/ANY/ack', scope: 'orders:write' });
    itChecksAuth(() => h, { method: 'PATCH', url: '/v1/orders/ANY/status', scope: 'orders:write', payload: { status: 'confirmed' } });

    it('a read-only key cannot create, ack or change status', async () => {
      expectError(await create(orderPayload(nextPo()), ro), 403, 'missing_scope');
      const order = await createOk();
      expectError(await ack(order.id, ro), 403, 'missing_scope');
      expectError(await patch(order.id, 'cancelled', ro), 403, 'missing_scope');
    });
  });

  describe('create', () => {
    it('creates a submitted order with catalog SKUs, product names, totals, and delivers it to the hub', async () => {
      const res = await create({
        po_number: 'PO-HAPPY',
        ship_to: '  Dealer 7, Oak Road  ',
        notes: 'deliver before noon',
        lines: [
          { sku: 'tire-225', quantity: 4, unit_price: '129.99' },
          { sku: 'TIRE-MUD', quantity: 2, unit_price: '210.5' },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const body = res.json<{ ok: boolean; order: OrderBody }>();
      expect(body.ok).toBe(true);
      const order = body.order;
      expect(order.id).toMatch(/^ord_[0-9a-z]{26}$/);
      expect(order).toMatchObject({
        po_number: 'PO-HAPPY',
        status: 'submitted',
        ship_to: 'Dealer 7, Oak Road',
        notes: 'deliver before noon',
        source: 'api',
        currency: 'USD',
        totals: { line_count: 2, total_quantity: 6, subtotal: '940.96' },
        created_at: h.clock.now().toISOString(),
        updated_at: h.clock.now().toISOString(),
        delivery: { status: 'delivered', attempts: 1, last_error: null },
      });
      expect(order.lines).toEqual([
        { line_no: 1, sku: 'TIRE-225', product_name: 'Touring 225/45R17', quantity: 4, currency: 'USD', unit_price: '129.9900', line_total: '519.96' },
        { line_no: 2, sku: 'Tire-Mud', product_name: 'Mud Terrain 265/70R17', quantity: 2, currency: 'USD', unit_price: '210.5000', line_total: '421.00' },
      ]);
      const events = sim.events();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'order.created', org_id: expect.stringMatching(/^org_/) as unknown, data: { id: order.id, po_number: 'PO-HAPPY' } });
      // The hub gets the order as the API shows it: money as decimal strings with the currency.
      expect(events[0]?.data).toMatchObject({ currency: 'USD', lines: [{ unit_price: '129.9900', line_total: '519.96' }, {}], totals: { subtotal: '940.96' } });
    });

    it('keeps notes optional and null', async () => {
      const order = await createOk();
      expect(order.notes).toBeNull();
    });

    it('refuses a PO number already used in the org with 409, but another org may use it', async () => {
      await createOk(orderPayload('PO-DUP'));
      expectError(await create(orderPayload('PO-DUP')), 409, 'already_exists');
      await createOk(orderPayload('PO-DUP'), otherOrg);
    });

    it('refuses unknown and inactive SKUs with 422 naming the line index', async () => {
      const unknown = expectError(
        await create(orderPayload(nextPo(), [{ sku: 'tire-225', quantity: 1, unit_price: '1' }, { sku: 'NOPE', quantity: 1, unit_price: '1' }])),
        422,
        'unknown_sku',
      );
      expect(unknown.error).toContain('lines[1]');
      expect(unknown.details).toEqual([{ path: 'lines.1.sku', index: 1, sku: 'NOPE', code: 'unknown_sku', message: 'unknown sku NOPE' }]);
      expect(unknown.param).toBe('lines[1].sku');
      const inactive = expectError(await create(orderPayload(nextPo(), [{ sku: 'old-1', quantity: 1, unit_price: '1' }])), 422, 'inactive_sku');
      expect(inactive.error).toContain('lines[0]');
      expect(inactive.error).toContain('inactive');
    });

    it('does not resolve SKUs against another org\'s catalog', async () => {
      const { key } = await h.key('globex', 'products:write');
      await h.request({ method: 'POST', url: '/v1/products', payload: { sku: 'GLOBEX-ONLY', name: 'g' }, key });
      expectError(await create(orderPayload(nextPo(), [{ sku: 'GLOBEX-ONLY', quantity: 1, unit_price: '1' }])), 422, 'unknown_sku');
    });

    const line = { sku: 'tire-225', quantity: 1, unit_price: '1' };
    const bad: [string, unknown][] = [
      ['no body fields', {}],
      ['missing po_number', { ship_to: 'x', lines: [line] }],
      ['empty po_number', { po_number: '', ship_to: 'x', lines: [line] }],
      ['blank po_number', { po_number: '   ', ship_to: 'x', lines: [line] }],
      ['po_number of 65 characters', { po_number: 'P'.repeat(65), ship_to: 'x', lines: [line] }],
      ['po_number with a control character', { po_number: 'PO\u0000', ship_to: 'x', lines: [line] }],
      ['po_number not a string', { po_number: 12, ship_to: 'x', lines: [line] }],
      ['missing ship_to', { po_number: 'X', lines: [line] }],
      ['blank ship_to', { po_number: 'X', ship_to: ' ', lines: [line] }],
      ['notes not a string', { po_number: 'X', ship_to: 'x', notes: 5, lines: [line] }],
      ['missing lines', { po_number: 'X', ship_to: 'x' }],
      ['no lines', { po_number: 'X', ship_to: 'x', lines: [] }],
      ['501 lines', { po_number: 'X', ship_to: 'x', lines: Array.from({ length: 501 }, () => line) }],
      ['lines not an array', { po_number: 'X', ship_to: 'x', lines: line }],
      ['blank sku', { po_number: 'X', ship_to: 'x', lines: [{ ...line, sku: ' ' }] }],
      ['missing sku', { po_number: 'X', ship_to: 'x', lines: [{ quantity: 1, unit_price: '1' }] }],
      ['quantity 0', { po_number: 'X', ship_to: 'x', lines: [{ ...line, quantity: 0 }] }],
      ['negative quantity', { po_number: 'X', ship_to: 'x', lines: [{ ...line, quantity: -2 }] }],
      ['fractional quantity', { po_number: 'X', ship_to: 'x', lines: [{ ...line, quantity: 1.5 }] }],
      ['quantity as a string', { po_number: 'X', ship_to: 'x', lines: [{ ...line, quantity: '2' }] }],
      ['missing unit_price', { po_number: 'X', ship_to: 'x', lines: [{ sku: 'tire-225', quantity: 1 }] }],
      ['unknown field', { po_number: 'X', ship_to: 'x', lines: [line], priority: 'high' }],
      ['unknown line field', { po_number: 'X', ship_to: 'x', lines: [{ ...line, discount: 1 }] }],
      ['po_number with a space', { po_number: 'PO 1', ship_to: 'x', lines: [line] }],
      ['po_number with surrounding spaces', { po_number: ' PO-1 ', ship_to: 'x', lines: [line] }],
      ['po_number with a right-to-left override', { po_number: 'PO-\u202e1', ship_to: 'x', lines: [line] }],
      ['po_number with a zero-width space', { po_number: 'PO-\u200b1', ship_to: 'x', lines: [line] }],
      ['sku with a zero-width joiner', { po_number: 'X', ship_to: 'x', lines: [{ ...line, sku: 'tire\u200d-225' }] }],
      ['sku with a space inside', { po_number: 'X', ship_to: 'x', lines: [{ ...line, sku: 'tire 225' }] }],
      ['ship_to with a control character', { po_number: 'X', ship_to: 'Dealer\u0007 7', lines: [line] }],
      ['ship_to of 1001 characters', { po_number: 'X', ship_to: 's'.repeat(1001), lines: [line] }],
      ['notes of 4001 characters', { po_number: 'X', ship_to: 'x', notes: 'n'.repeat(4001), lines: [line] }],
    ];
    it.each(bad)('400 for %s', async (_label, payload) => {
      expectError(await create(payload), 400, 'invalid_input');
    });

    it('names the refused character of an identifier', async () => {
      const body = expectError(await create(orderPayload('PO-\u202eX')), 400, 'invalid_input');
      expect(body.error).toContain('po_number must not contain invisible or bidi-control characters (U+202E at position 4)');
      expect(body.details).toEqual([{ path: 'po_number', message: 'po_number must not contain invisible or bidi-control characters (U+202E at position 4)' }]);
    });

    it('keeps tabs and newlines in notes and ship_to (free text)', async () => {
      const order = await createOk({ ...orderPayload(nextPo()), ship_to: 'Dealer 7\nOak Road', notes: 'gate code\t1234' });
      expect(order).toMatchObject({ ship_to: 'Dealer 7\nOak Road', notes: 'gate code\t1234' });
    });

    it('400 for a body that is not JSON', async () => {
      expectError(
        await h.request({ method: 'POST', url: '/v1/orders', payload: '{"po_number":', headers: { 'content-type': 'application/json' }, key: rw }),
        400,
        'invalid_input',
      );
    });

    it('records source mcp when created through the MCP tool', async () => {
      await connectMcp();
      const out = await mcp().call('orders_create', orderPayload('PO-MCP'));
      expect(out.isError, JSON.stringify(out)).toBeFalsy();
      expect((out.structuredContent as { order: OrderBody }).order.source).toBe('mcp');
      const got = await get('PO-MCP');
      expect(got.json<{ order: OrderBody }>().order.source).toBe('mcp');
    });
  });

  describe('money', () => {
    const line = { sku: 'tire-225', quantity: 1, unit_price: '1' };
    const badMoney: [string, unknown, string][] = [
      ['unit_price as a JSON number', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: 129.99 }] }, 'lines.0.unit_price: unit_price must be a decimal string such as "129.99", not a JSON number'],
      ['unit_price as a whole JSON number', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: 1 }] }, 'not a JSON number'],
      ['negative unit_price', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: '-0.01' }] }, 'unit_price must not be negative'],
      ['unit_price with 5 decimals', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: '1.00001' }] }, 'unit_price has at most 4 decimals'],
      ['unit_price with an exponent', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: '1e3' }] }, 'no sign, exponent or spaces'],
      ['unit_price with a comma', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: '1,50' }] }, 'no sign, exponent or spaces'],
      ['unit_price too large', { po_number: 'X', ship_to: 'x', lines: [{ ...line, unit_price: '1000000.0001' }] }, 'unit_price must be at most 1000000'],
      ['unknown currency', { po_number: 'X', ship_to: 'x', currency: 'XYZ', lines: [line] }, 'currency: currency XYZ is not an active ISO 4217 currency code'],
      ['withdrawn currency', { po_number: 'X', ship_to: 'x', currency: 'HRK', lines: [line] }, 'HRK is not an active ISO 4217 currency code'],
      ['lowercase currency', { po_number: 'X', ship_to: 'x', currency: 'usd', lines: [line] }, 'currency must be an ISO 4217 code: three capital letters'],
      ['currency not a string', { po_number: 'X', ship_to: 'x', currency: 840, lines: [line] }, 'currency'],
      ['currency on a line', { po_number: 'X', ship_to: 'x', lines: [{ ...line, currency: 'USD' }] }, 'currency'],
    ];
    it.each(badMoney)('400 for %s, saying what to send', async (_label, payload, message) => {
      const body = expectError(await create(payload), 400, 'invalid_input');
      expect(body.error).toContain(message);
    });

    it('refuses a JSON number for money through MCP too, naming the argument', async () => {
      await connectMcp();
      const out = await mcp().call('orders_create', { ...orderPayload(nextPo()), lines: [{ ...line, unit_price: 129.99 }] });
      expect(out.isError).toBe(true);
      expect(JSON.stringify(out.content)).toContain('unit_price must be a decimal string');
      const unknown = await mcp().call('orders_create', { ...orderPayload(nextPo()), currency: 'XYZ' });
      expect(unknown.isError).toBe(true);
      expect(JSON.stringify(unknown.content)).toContain('XYZ is not an active ISO 4217 currency code');
    });

    it('declares every money field a decimal string in OpenAPI, with the pattern the server enforces', async () => {
      const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json<{
        paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: Record<string, { items?: { properties: Record<string, unknown> } }> } }> } }>>;
        components: { schemas: Record<string, { properties: Record<string, { items?: { properties: Record<string, unknown> }; properties?: Record<string, unknown> }> }> };
      }>();
      const body = doc.paths['/v1/orders']?.post?.requestBody?.content['application/json']?.schema.properties;
      expect(body?.currency).toMatchObject({ type: 'string', pattern: '^[A-Z]{3}$' });
      expect(body?.lines?.items?.properties.unit_price).toMatchObject({ type: 'string', pattern: '^\\d+(?:\\.\\d{1,4})?$' });
      const order = doc.components.schemas.Order?.properties;
      expect(order?.currency).toMatchObject({ type: 'string' });
      expect(order?.lines?.items?.properties).toMatchObject({ currency: { type: 'string' }, unit_price: { type: 'string' }, line_total: { type: 'string' } });
      expect(order?.totals?.properties?.subtotal).toMatchObject({ type: 'string' });
    });

    it('keeps 4-decimal unit prices exact and rounds line totals to cents, half away from zero', async () => {
      const order = await createOk(
        orderPayload(nextPo(), [
          { sku: 'tire-225', quantity: 3, unit_price: '0.1' },
          { sku: 'tire-225', quantity: 3, unit_price: '19.9999' },
          { sku: 'tire-225', quantity: 1, unit_price: '0.005' },
          { sku: 'tire-225', quantity: 1, unit_price: '0.0049' },
          { sku: 'tire-225', quantity: 7, unit_price: '0' },
        ]),
      );
      expect(order.lines.map((l) => [l.unit_price, l.line_total])).toEqual([
        ['0.1000', '0.30'],
        ['19.9999', '60.00'],
        ['0.0050', '0.01'],
        ['0.0049', '0.00'],
        ['0.0000', '0.00'],
      ]);
      expect(order.totals).toEqual({ line_count: 5, total_quantity: 15, subtotal: '60.31' });
      // No money field of the JSON text is a number.
      const text = (await get(order.id)).body;
      expect(text).toContain('"unit_price":"19.9999"');
      expect(text).toContain('"subtotal":"60.31"');
      expect(text).not.toMatch(/"(unit_price|line_total|subtotal)":\d/);
    });

    it('sums 500 lines of 0.1 to exactly 50 (a float sum would drift)', async () => {
      const lines = Array.from({ length: 500 }, () => ({ sku: 'tire-225', quantity: 1, unit_price: '0.1' }));
      const order = await createOk(orderPayload(nextPo(), lines));
      expect(order.totals.subtotal).toBe('50.00');
      expect(lines.reduce((sum, l) => sum + Number(l.unit_price), 0)).not.toBe(50);
    });

    it('answers through MCP with the same decimal strings and currency', async () => {
      await connectMcp();
      const out = await mcp().call('orders_create', { ...orderPayload(nextPo(), [{ sku: 'tire-225', quantity: 3, unit_price: '19.9999' }]), currency: 'EUR' });
      expect(out.isError, JSON.stringify(out)).toBeFalsy();
      const order = (out.structuredContent as { order: OrderBody }).order;
      expect(order).toMatchObject({ currency: 'EUR', lines: [{ currency: 'EUR', unit_price: '19.9999', line_total: '60.00' }], totals: { subtotal: '60.00' } });
    });

    it('rounds totals to the minor unit of the order currency: JPY none, KWD 3, CLF 4', async () => {
      const jpy = await createOk({ ...orderPayload(nextPo(), [{ sku: 'tire-225', quantity: 3, unit_price: '0.5' }, { sku: 'tire-225', quantity: 1, unit_price: '1500' }]), currency: 'JPY' });
      expect(jpy).toMatchObject({ currency: 'JPY', totals: { subtotal: '1502' } });
      expect(jpy.lines.map((l) => [l.currency, l.unit_price, l.line_total])).toEqual([
        ['JPY', '0.5000', '2'],
        ['JPY', '1500.0000', '1500'],
      ]);
      const kwd = await createOk({ ...orderPayload(nextPo(), [{ sku: 'tire-225', quantity: 7, unit_price: '1.2345' }]), currency: 'KWD' });
      expect(kwd).toMatchObject({ currency: 'KWD', lines: [{ unit_price: '1.2345', line_total: '8.642' }], totals: { subtotal: '8.642' } });
      const clf = await createOk({ ...orderPayload(nextPo(), [{ sku: 'tire-225', quantity: 3, unit_price: '0.3333' }]), currency: 'CLF' });
      expect(clf.totals.subtotal).toBe('0.9999');
      expect((await get(jpy.id)).json<{ order: OrderBody }>().order.totals.subtotal).toBe('1502');
    });

    it("prices orders without a currency in the org's default, which the operator sets and checks", async () => {
      await h.org('euro-dealer');
      const { key } = await h.key('euro-dealer', 'orders:read,orders:write');
      await seedCatalog(h, 'euro-dealer');
      expect((await createOk(orderPayload(nextPo()), key)).currency).toBe('USD');
      await h.gateway.services.orgs.setSettings('euro-dealer', ['orders.currency=EUR']);
      const order = await createOk(orderPayload(nextPo()), key);
      expect(order).toMatchObject({ currency: 'EUR', lines: [{ currency: 'EUR', unit_price: '129.9900', line_total: '519.96' }] });
      expect((await createOk({ ...orderPayload(nextPo()), currency: 'GBP' }, key)).currency).toBe('GBP');
      // Other orgs keep theirs.
      expect((await createOk()).currency).toBe('USD');
      await expect(h.gateway.services.orgs.setSettings('euro-dealer', ['orders.currency=EURO'])).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('orders.currency must be an ISO 4217 code') as unknown });
      await expect(h.gateway.services.orgs.setSettings('euro-dealer', ['orders.currency=XXX'])).rejects.toMatchObject({ code: 'invalid_input' });
      expect((await createOk(orderPayload(nextPo()), key)).currency).toBe('EUR');
    });

    it('sums an EDI order of 10,000 lines exactly, and serves it over HTTP', async () => {
      const me = await h.org('acme');
      const prices = ['0.1', '19.9999', '0.3333', '1234.5678', '0.01'];
      const lines = Array.from({ length: 10_000 }, (_, i) => ({ sku: 'TIRE-225', quantity: (i % 3) + 1, unit_price: prices[i % prices.length] ?? '0' }));
      const expectedCents = lines.reduce((sum, l) => {
        const [whole = '', fraction = ''] = l.unit_price.split('.');
        const units = BigInt(whole + fraction.padEnd(4, '0')) * BigInt(l.quantity);
        return sum + (units + 50n) / 100n;
      }, 0n);
      const expected = `${expectedCents / 100n}.${String(expectedCents % 100n).padStart(2, '0')}`;
      const created = await ediOrder(me.id, { po_number: 'PO-EDI-10K', ship_to: 'Warehouse 3', lines });
      expect(created.source).toBe('edi');
      expect(created.totals.line_count).toBe(10_000);
      expect(created.totals.subtotal).toBe(expected);
      const res = await get('PO-EDI-10K');
      expect(res.statusCode).toBe(200);
      const order = res.json<{ order: OrderBody }>().order;
      expect(order.lines).toHaveLength(10_000);
      expect(order.totals.subtotal).toBe(expected);
    });
  });

  describe('read', () => {
    it('gets an order by id, then by PO number (URL-encoded), and 404s otherwise', async () => {
      const order = await createOk(orderPayload('PO-77/B'));
      expect((await get(order.id)).json<{ order: OrderBody }>().order.po_number).toBe('PO-77/B');
      expect((await get('PO-77/B')).json<{ order: OrderBody }>().order.id).toBe(order.id);
      expectError(await get('PO-NEVER'), 404, 'not_found');
      expectError(await get('ord_00000000000000000000000000'), 404, 'not_found');
    });

    it('prefers an id match over a PO number that looks like another order\'s id', async () => {
      const first = await createOk();
      const second = await createOk(orderPayload(first.id));
      expect((await get(first.id)).json<{ order: OrderBody }>().order.id).toBe(first.id);
      expect((await get(second.po_number)).json<{ order: OrderBody }>().order.id).toBe(first.id);
    });

    it('lists the newest first with lines, filters by status, and pages with next_cursor', async () => {
      const { key } = await h.key('list-org', 'orders:read,orders:write,products:write');
      await h.request({ method: 'POST', url: '/v1/products', payload: { sku: 'TIRE-225', name: 't' }, key });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        h.clock.advance(1000);
        ids.push((await createOk(orderPayload(`L-${i}`), key)).id);
      }
      await ack(ids[1] ?? '', key);
      const all = await h.request({ method: 'GET', url: '/v1/orders', key });
      expect(all.statusCode).toBe(200);
      const body = all.json<{ orders: OrderBody[]; next_cursor: string | null }>();
      expect(body.orders.map((o) => o.id)).toEqual([...ids].reverse());
      expect(body.orders[0]?.lines).toHaveLength(1);
      expect(body.next_cursor).toBeNull();

      const confirmed = await h.request({ method: 'GET', url: '/v1/orders?status=confirmed', key });
      expect(confirmed.json<{ orders: OrderBody[] }>().orders.map((o) => o.id)).toEqual([ids[1]]);
      const none = await h.request({ method: 'GET', url: '/v1/orders?status=shipped', key });
      expect(none.json<{ orders: OrderBody[] }>().orders).toEqual([]);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/orders?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await h.request({ method: 'GET', url, key });
        const p = res.json<{ orders: OrderBody[]; next_cursor: string | null }>();
        seen.push(...p.orders.map((o) => o.id));
        cursor = p.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual([...ids].reverse());
    });

    it('caps the list at 50 orders', async () => {
      const { key } = await h.key('many-org', 'orders:read,orders:write,products:write');
      await h.request({ method: 'POST', url: '/v1/products', payload: { sku: 'TIRE-225', name: 't' }, key });
      for (let i = 0; i < 51; i++) await createOk(orderPayload(`M-${i}`), key);
      const res = await h.request({ method: 'GET', url: '/v1/orders', key });
      const body = res.json<{ orders: OrderBody[]; next_cursor: string | null }>();
      expect(body.orders).toHaveLength(50);
      expect(body.next_cursor).not.toBeNull();
    });

    it('400 for a query parameter on a get by id, and for invisible or bidi characters in the reference', async () => {
      const order = await createOk();
      const unknown = expectError(await h.request({ method: 'GET', url: `/v1/orders/${order.id}?expand=lines`, key: rw }), 400, 'invalid_input');
      expect(unknown.error).toContain('invalid query');
      const bidi = expectError(await get(`${order.id}\u202e`), 400, 'invalid_input');
      expect(bidi.error).toContain('id_or_po_number must not contain invisible or bidi-control characters (U+202E at position 31)');
      expectError(await get(`\u200b${order.po_number}`), 400, 'invalid_input');
      expectError(await ack(`${order.id}\u2066`), 400, 'invalid_input');
      expectError(await patch(`${order.id}\ufeff`, 'confirmed'), 400, 'invalid_input');
      expect((await get(order.id)).json<{ order: OrderBody }>().order.status).toBe('submitted');
    });

    it.each([
      ['an unknown status', '/v1/orders?status=lost'],
      ['limit 0', '/v1/orders?limit=0'],
      ['limit 51', '/v1/orders?limit=51'],
      ['a bad cursor', '/v1/orders?cursor=nope'],
      ['an unknown query parameter', '/v1/orders?sort=asc'],
    ])('400 for %s', async (_label, url) => {
      expectError(await h.request({ method: 'GET', url, key: rw }), 400, 'invalid_input');
    });
  });

  describe('isolation', () => {
    it('never shows, acknowledges or changes another org\'s order (404)', async () => {
      const mine = await createOk(orderPayload('PO-ISO'));
      expectError(await get(mine.id, otherOrg), 404, 'not_found');
      expectError(await get('PO-ISO', otherOrg), 404, 'not_found');
      expectError(await ack(mine.id, otherOrg), 404, 'not_found');
      expectError(await patch(mine.id, 'cancelled', otherOrg), 404, 'not_found');
      const list = await h.request({ method: 'GET', url: '/v1/orders', key: otherOrg });
      expect(list.json<{ orders: OrderBody[] }>().orders.map((o) => o.id)).not.toContain(mine.id);
      expect((await get(mine.id)).json<{ order: OrderBody }>().order.status).toBe('submitted');
    });
  });

  describe('state machine', () => {
    const path: Record<string, string[]> = {
      submitted: [],
      confirmed: ['confirmed'],
      processing: ['confirmed', 'processing'],
      shipped: ['confirmed', 'processing', 'shipped'],
      delivered: ['confirmed', 'processing', 'shipped', 'delivered'],
      cancelled: ['cancelled'],
    };
    const allowed: Record<string, string[]> = {
      submitted: ['confirmed', 'cancelled'],
      confirmed: ['processing', 'cancelled'],
      processing: ['shipped', 'cancelled'],
      shipped: ['delivered'],
      delivered: [],
      cancelled: [],
    };
    const orderIn = async (status: string): Promise<OrderBody> => {
      let order = await createOk();
      for (const step of path[status] ?? []) {
        const res = await patch(order.id, step);
        expect(res.statusCode, res.body).toBe(200);
        order = res.json<{ order: OrderBody }>().order;
      }
      return order;
    };
    const cases = Object.keys(path).flatMap((from) =>
      ['confirmed', 'processing', 'shipped', 'delivered', 'cancelled'].map((to) => [from, to] as const),
    );

    it.each(cases)('%s -> %s', async (from, to) => {
      const order = await orderIn(from);
      const eventsBefore = sim.events().length;
      const res = await patch(order.po_number, to);
      if (from === to) {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json<{ order: OrderBody }>().order).toMatchObject({ status: to, updated_at: order.updated_at });
        expect(sim.events()).toHaveLength(eventsBefore);
      } else if (allowed[from]?.includes(to)) {
        expect(res.statusCode, res.body).toBe(200);
        const moved = res.json<{ order: OrderBody }>().order;
        expect(moved.status).toBe(to);
        expect(moved.delivery.status).toBe('delivered');
        const last = sim.events().at(-1);
        expect(last).toMatchObject({ type: 'order.status_changed', data: { order_id: order.id, from, to } });
      } else {
        const body = expectError(res, 409, 'invalid_transition');
        expect(body.details).toEqual({ requested: to, status: from, allowed: allowed[from] });
        expect((await get(order.id)).json<{ order: OrderBody }>().order.status).toBe(from);
      }
    });

    it('ack: submitted -> confirmed, a confirmed order is a no-op 200, any other state 409', async () => {
      const order = await createOk();
      const first = await ack(order.po_number);
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json<{ order: OrderBody }>().order.status).toBe('confirmed');
      const events = sim.events().length;
      const again = await ack(order.id);
      expect(again.statusCode).toBe(200);
      expect(again.json<{ order: OrderBody }>().order.status).toBe('confirmed');
      expect(sim.events()).toHaveLength(events);
      for (const status of ['processing', 'shipped', 'delivered', 'cancelled']) {
        const other = await orderIn(status);
        const body = expectError(await ack(other.id), 409, 'invalid_transition');
        expect(body.details).toEqual({ requested: 'confirmed', status, allowed: allowed[status] });
      }
      expectError(await ack('PO-NEVER'), 404, 'not_found');
    });

    it('ack takes no body: a JSON body is refused, an empty one is fine whatever its content type', async () => {
      const order = await createOk();
      const url = `/v1/orders/${order.id}/ack`;
      const withBody = expectError(await h.request({ method: 'POST', url, payload: { status: 'confirmed' }, key: rw }), 400, 'invalid_input');
      expect(withBody.error).toBe('POST /v1/orders/:id_or_po_number/ack takes no request body');
      expectError(await h.request({ method: 'POST', url, payload: 'x', headers: { 'content-type': 'text/plain' }, key: rw }), 400, 'invalid_input');
      expect((await get(order.id)).json<{ order: OrderBody }>().order.status).toBe('submitted');
      const empty = await h.request({ method: 'POST', url, payload: '', headers: { 'content-type': 'application/json' }, key: rw });
      expect(empty.statusCode, empty.body).toBe(200);
      expect(empty.json<{ order: OrderBody }>().order.status).toBe('confirmed');
      const emptyText = await h.request({ method: 'POST', url, payload: '', headers: { 'content-type': 'text/plain' }, key: rw });
      expect(emptyText.statusCode, emptyText.body).toBe(200);
    });

    it.each([
      ['submitted (never a target)', { status: 'submitted' }],
      ['an unknown status', { status: 'lost' }],
      ['no status', {}],
      ['an extra field', { status: 'confirmed', reason: 'x' }],
    ])('PATCH status: 400 for %s', async (_label, payload) => {
      const order = await createOk();
      expectError(await h.request({ method: 'PATCH', url: `/v1/orders/${order.id}/status`, payload, key: rw }), 400, 'invalid_input');
    });

    it('lets exactly one of two conflicting concurrent changes win', async () => {
      for (let round = 0; round < 3; round++) {
        const order = await orderIn('processing');
        const targets = ['shipped', 'cancelled', 'shipped', 'cancelled', 'shipped', 'cancelled', 'shipped', 'cancelled'];
        const results = await Promise.all(targets.map((t) => patch(order.id, t)));
        const final = (await get(order.id)).json<{ order: OrderBody }>().order.status;
        expect(['shipped', 'cancelled']).toContain(final);
        results.forEach((res, i) => expect(res.statusCode, res.body).toBe(targets[i] === final ? 200 : 409));
        const changes = await h.gateway.database.db
          .selectFrom('outbox')
          .select('payload')
          .where('type', '=', 'order.status_changed')
          .where('payload', 'like', `%${order.id}%`)
          .execute();
        expect(changes.filter((c) => c.payload.includes('"from":"processing"'))).toHaveLength(1);
      }
    });
  });

  describe('status change listeners (the EDI hook)', () => {
    it('runs listeners in the change\'s transaction: a failing listener rolls the change and its event back', async () => {
      const seen: string[] = [];
      let fail = false;
      const orgId = (await h.org('acme')).id;
      h.gateway.services.orders.onStatusChanged(async (tx, { orgId: changedIn, order, from, to }) => {
        expect(changedIn).toBe(orgId);
        seen.push(`${order.po_number}:${from}->${to}`);
        const row = await tx.selectFrom('orders').select('status').where('id', '=', order.id).executeTakeFirst();
        expect(row?.status).toBe(to);
        if (fail) throw new Error('listener failed');
      });
      const order = await createOk(orderPayload('PO-LISTEN'));
      expect((await ack(order.id)).statusCode).toBe(200);
      expect(seen).toEqual(['PO-LISTEN:submitted->confirmed']);
      fail = true;
      const before = await h.gateway.database.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect((await patch(order.id, 'processing')).statusCode).toBe(500);
      const after = await h.gateway.database.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect((await get(order.id)).json<{ order: OrderBody }>().order.status).toBe('confirmed');
      fail = false;
    });
  });

  describe('MCP tools', () => {
    interface ToolError {
      code: string;
      status: number;
      message: string;
      details?: unknown;
    }
    const toolError = (out: { isError?: boolean; structuredContent?: Record<string, unknown> }): ToolError => {
      expect(out.isError, JSON.stringify(out)).toBe(true);
      return out.structuredContent as unknown as ToolError;
    };
    const orderOf = (out: { isError?: boolean; structuredContent?: Record<string, unknown> }): OrderBody => {
      expect(out.isError, JSON.stringify(out)).toBeFalsy();
      return (out.structuredContent as { order: OrderBody }).order;
    };
    beforeAll(async () => {
      await connectMcp();
    });

    it('lists the five order tools with honest hints', async () => {
      const tools = (await mcp().listTools()).filter((t) => t.name.startsWith('orders_'));
      const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
      expect(Object.keys(hints).sort()).toEqual(['orders_ack', 'orders_create', 'orders_get', 'orders_list', 'orders_set_status']);
      expect(hints.orders_get).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(hints.orders_create).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
      expect(hints.orders_ack).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      expect(hints.orders_set_status).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true });
      const setStatus = tools.find((t) => t.name === 'orders_set_status');
      expect(Object.keys(setStatus?.inputSchema.properties ?? {}).sort()).toEqual(['id_or_po_number', 'idempotency_key', 'shipment', 'status']);
      const get = tools.find((t) => t.name === 'orders_get');
      expect(Object.keys(get?.inputSchema.properties ?? {})).toEqual(['id_or_po_number']);
    });

    it('gets, acknowledges and moves an order with flat arguments; a forbidden move is an error with its details', async () => {
      const order = await createOk();
      expect(orderOf(await mcp().call('orders_get', { id_or_po_number: order.po_number })).id).toBe(order.id);
      expect(orderOf(await mcp().call('orders_ack', { id_or_po_number: order.id })).status).toBe('confirmed');
      const moved = orderOf(await mcp().call('orders_set_status', { id_or_po_number: order.id, status: 'processing' }));
      expect(moved).toMatchObject({ status: 'processing', delivery: { status: 'delivered' } });
      const refused = toolError(await mcp().call('orders_set_status', { id_or_po_number: order.id, status: 'confirmed' }));
      expect(refused).toMatchObject({ code: 'invalid_transition', status: 409, details: { status: 'processing', allowed: ['shipped', 'cancelled'] } });
      const missing = toolError(await mcp().call('orders_get', { id_or_po_number: 'PO-NEVER' }));
      expect(missing).toMatchObject({ code: 'not_found', status: 404 });
      const list = await mcp().call('orders_list', { status: 'processing', limit: 5 });
      const listed = (list.structuredContent as { orders: OrderBody[] }).orders;
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.length).toBeLessThanOrEqual(5);
      expect(listed.every((o) => o.status === 'processing')).toBe(true);
    });

    it('refuses an unknown argument as invalid_input with the same details as REST', async () => {
      const payload = { ...orderPayload(nextPo()), priority: 'high' };
      const rest = expectError(await create(payload), 400, 'invalid_input');
      const viaMcp = toolError(await mcp().call('orders_create', payload));
      expect(viaMcp).toEqual(toolErrorOf(rest));
      expect(viaMcp).toMatchObject({ param: 'priority', message: 'invalid arguments: priority: is unknown' });

      const order = await createOk();
      const restGet = expectError(await h.request({ method: 'GET', url: `/v1/orders/${order.id}?expand=lines`, key: rw }), 400, 'invalid_input');
      const mcpGet = toolError(await mcp().call('orders_get', { id_or_po_number: order.id, expand: 'lines' }));
      expect(mcpGet).toEqual(toolErrorOf(restGet));

      const restAck = expectError(await h.request({ method: 'POST', url: `/v1/orders/${order.id}/ack?force=1`, key: rw }), 400, 'invalid_input');
      const mcpAck = toolError(await mcp().call('orders_ack', { id_or_po_number: order.id, force: 1 }));
      expect(mcpAck.details).toEqual(restAck.details);
      // The old nested shape is gone: arguments are flat.
      expect(toolError(await mcp().call('orders_set_status', { id_or_po_number: order.id, changes: { status: 'confirmed' } })).code).toBe('invalid_input');
      expect((await get(order.id)).json<{ order: OrderBody }>().order.status).toBe('submitted');
    });

    it('refuses invisible and bidi characters in identifiers, as REST does', async () => {
      const err = toolError(await mcp().call('orders_create', orderPayload('PO-\u202eMCP')));
      expect(err).toMatchObject({ code: 'invalid_input', status: 400 });
      expect(err.message).toContain('U+202E at position 4');
      expect(toolError(await mcp().call('orders_get', { id_or_po_number: 'PO\u200b1' })).code).toBe('invalid_input');
    });

    it('replays a create sent again with the same idempotency_key: one order, one hub event', async () => {
      const po = nextPo();
      const args = { ...orderPayload(po), idempotency_key: `mcp-${dialect}-${po}` };
      const first = orderOf(await mcp().call('orders_create', args));
      const again = orderOf(await mcp().call('orders_create', args));
      expect(again).toEqual(first);
      const changed = toolError(await mcp().call('orders_create', { ...args, notes: 'different' }));
      expect(changed.code).toBe('idempotency_key_reused');
      const count = await h.gateway.database.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('po_number', '=', po)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
      expect(sim.events().filter((e) => e.type === 'order.created' && (e.data as { po_number: string }).po_number === po)).toHaveLength(1);
      // The key is shared with REST's Idempotency-Key.
      const viaRest = await create(orderPayload(po), rw, { 'idempotency-key': `mcp-${dialect}-${po}` });
      expect(viaRest.statusCode, viaRest.body).toBe(201);
      expect(viaRest.headers['idempotent-replayed']).toBe('true');
      expect(viaRest.json<{ order: OrderBody }>().order.id).toBe(first.id);
    });

    it('refuses idempotency_key on a read-only tool as an unknown argument', async () => {
      expect(toolError(await mcp().call('orders_list', { idempotency_key: 'k-1' })).code).toBe('invalid_input');
    });
  });

  describe('create for EDI', () => {
    it('creates inside the caller\'s transaction, so the caller\'s rollback undoes the order and its event', async () => {
      const me = await h.org('acme');
      const { db } = h.gateway.database;
      await expect(
        db.transaction().execute(async (tx) => {
          const order = await h.gateway.services.orders.create(tx, me.id, 'edi', orderPayload('PO-EDI-RB'));
          expect(order).toMatchObject({ source: 'edi', status: 'submitted', delivery: { status: 'queued', attempts: 0 } });
          throw new Error('the 997 could not be written');
        }),
      ).rejects.toThrow('997');
      expectError(await get('PO-EDI-RB'), 404, 'not_found');
      const order = await ediOrder(me.id, orderPayload('PO-EDI-OK'));
      expect((await get(order.id)).json<{ order: OrderBody }>().order.source).toBe('edi');
    });

    it('refuses bad EDI input with 422 and details', async () => {
      const me = await h.org('acme');
      await expect(
        ediOrder(me.id, { po_number: '', ship_to: 'x', lines: [{ sku: 'TIRE-225', quantity: 0, unit_price: '1' }] }),
      ).rejects.toMatchObject({ status: 422, code: 'order_invalid' });
    });
  });
});
