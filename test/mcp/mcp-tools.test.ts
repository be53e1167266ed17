import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import { STATIC_SCOPES } from '../../src/platform/auth/scopes.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { clientKinds, listen, type McpTestClient } from './support/mcp-clients.js';

describe.each(dialects)('MCP tools over HTTP (%s)', (dialect) => {
  let h: Harness;
  let url: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    url = await listen(h);
  });
  afterAll(() => h.close());

  describe.each(clientKinds)('$label', (kind) => {
    const opened: McpTestClient[] = [];
    const connect = async (org: string, scopes: string) => {
      const client = await kind.connect(url, (await h.key(org, scopes)).key);
      opened.push(client);
      return client;
    };
    afterAll(async () => {
      await Promise.all(opened.map((c) => c.close()));
    });
    // Each client line gets its own org, so the same SKUs can be created once per line.
    const org = `org-${kind.label.replace(/[^a-z0-9]+/g, '-')}`;

    it('lists only the products tools a products:read key may use', async () => {
      const client = await connect(org, 'products:read');
      expect(client.protocolVersion).toBe(kind.protocolVersion);
      expect((await client.listTools()).map((t) => t.name).sort()).toEqual(['products_get', 'products_list']);
    });

    it('lists every tool an `all` key may use, each with title, description, schemas and annotations', async () => {
      const client = await connect(org, 'all');
      const tools = await client.listTools();
      const all = new Set<string>(STATIC_SCOPES);
      // Per-object tools decide visibility from objects:<key>:* scopes, which `all` does not grant.
      const expected = allTools(h.gateway.services).filter((t) => (typeof t.scope === 'string' ? all.has(t.scope) : false));
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(expected.map((t) => t.name)));
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['products_create', 'products_get', 'products_list', 'products_update']));
      for (const tool of tools) {
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.description, tool.name).toBeTruthy();
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        expect(tool.annotations, tool.name).toMatchObject({
          readOnlyHint: expect.any(Boolean) as unknown,
          destructiveHint: expect.any(Boolean) as unknown,
          idempotentHint: expect.any(Boolean) as unknown,
        });
      }
      const get = tools.find((t) => t.name === 'products_get');
      expect(get?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    });

    it('creates, gets, lists and updates a product, with structuredContent and a text copy', async () => {
      const client = await connect(org, 'products:read,products:write');
      const created = await client.call('products_create', { sku: 'TIRE-1', name: 'All-season 205/55R16', stock_qty: 5, bin_location: 'A-01' });
      expect(created.isError).toBeFalsy();
      expect(created.structuredContent).toMatchObject({
        product: { sku: 'TIRE-1', name: 'All-season 205/55R16', status: 'active', stock_qty: 5, stock_status: 'low_stock', bin_location: 'A-01' },
      });
      expect(JSON.parse(created.content[0]?.text ?? '')).toEqual(created.structuredContent);

      const got = await client.call('products_get', { sku: 'tire-1' });
      expect(got.structuredContent).toEqual(created.structuredContent);

      const listed = await client.call('products_list', { q: 'season' });
      expect(listed.structuredContent).toMatchObject({ products: [{ sku: 'TIRE-1' }], next_cursor: null });

      h.clock.advance(1000);
      const updated = await client.call('products_update', { sku: 'TIRE-1', changes: { stock_qty: 40, name: 'All-season' } });
      expect(updated.isError).toBeFalsy();
      expect(updated.structuredContent).toMatchObject({ product: { sku: 'TIRE-1', name: 'All-season', stock_qty: 40, stock_status: 'in_stock' } });

      const rest = await h.request({ method: 'GET', url: '/v1/products/TIRE-1', key: (await h.key(org, 'products:read')).key });
      expect(rest.json<{ product: unknown }>().product).toEqual((updated.structuredContent as { product: unknown }).product);
    });

    it('answers a call without the scope with isError and the REST message, even for a tool it does not list', async () => {
      const client = await connect(org, 'products:read');
      const result = await client.call('products_create', { sku: 'NOPE-1', name: 'Hidden' });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toBe('missing scope: products:write');
    });

    it('refuses a NUL character in arguments with the REST message, on every dialect', async () => {
      const client = await connect(org, 'products:write');
      const result = await client.call('products_create', { sku: 'NUL-1', name: 'bad\u0000name' });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toBe('arguments.name: the NUL character (U+0000) is not allowed');
    });

    it('keeps organisations apart: another org gets not found, as REST says', async () => {
      const owner = await connect(org, 'products:write');
      expect((await owner.call('products_create', { sku: 'SECRET-1', name: 'Private' })).isError).toBeFalsy();
      const stranger = await connect(`${org}-b`, 'products:read,products:write');
      const got = await stranger.call('products_get', { sku: 'SECRET-1' });
      const rest = await h.request({ method: 'GET', url: '/v1/products/SECRET-1', key: (await h.key(`${org}-b`, 'products:read')).key });
      expect(got.isError).toBe(true);
      expect(got.content[0]?.text).toBe(rest.json<{ error: string }>().error);
      expect((await stranger.call('products_update', { sku: 'SECRET-1', changes: { name: 'Mine' } })).isError).toBe(true);
      expect((await stranger.call('products_list', {})).structuredContent).toEqual({ products: [], next_cursor: null });
    });

    it('answers a conflict with isError and the REST message', async () => {
      const client = await connect(org, 'products:write');
      await client.call('products_create', { sku: 'DUP-1', name: 'First' });
      const again = await client.call('products_create', { sku: 'dup-1', name: 'Second' });
      expect(again.isError).toBe(true);
      expect(again.content[0]?.text).toBe('product dup-1 already exists');
    });

    it('answers invalid tool input with an error naming the field', async () => {
      const client = await connect(org, 'products:write');
      const missing = await client.call('products_create', { sku: 'BAD-1' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0]?.text).toMatch(/name/);
      const derived = await client.call('products_update', { sku: 'BAD-1', changes: { stock_status: 'in_stock' } });
      expect(derived.isError).toBe(true);
      expect(derived.content[0]?.text).toMatch(/stock_status/);
    });

    it('answers an unknown tool with a JSON-RPC error, not a tool result', async () => {
      const client = await connect(org, 'all');
      await expect(client.call('products_delete', { sku: 'X' })).rejects.toMatchObject({ code: -32602 });
    });

    it('refuses to connect with a bad key', async () => {
      await expect(kind.connect(url, `trk_live_${'x'.repeat(32)}`)).rejects.toThrow();
    });
  });
});
