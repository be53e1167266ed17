import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { clientKinds, listen, type McpTestClient } from './support/mcp-clients.js';

/** Paths of sub-schemas that carry no validation keyword at all (the object spelling of `true`). */
function unconstrained(schema: unknown, path = '#'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const keywords = ['type', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const', 'properties', 'items', 'not'];
  const found = path !== '#' && !keywords.some((k) => k in node) ? [path] : [];
  const children: [string, unknown][] = [
    ...Object.entries((node.properties ?? {}) as Record<string, unknown>).map(([k, v]): [string, unknown] => [`${path}/properties/${k}`, v]),
    ...Object.entries((node.$defs ?? {}) as Record<string, unknown>).map(([k, v]): [string, unknown] => [`${path}/$defs/${k}`, v]),
    ...['anyOf', 'oneOf', 'allOf'].flatMap((k) => ((node[k] ?? []) as unknown[]).map((v, i): [string, unknown] => [`${path}/${k}/${i}`, v])),
    ...(typeof node.items === 'object' ? [[`${path}/items`, node.items] as [string, unknown]] : []),
    ...(typeof node.additionalProperties === 'object' ? [[`${path}/additionalProperties`, node.additionalProperties] as [string, unknown]] : []),
  ];
  return [...found, ...children.flatMap(([p, v]) => unconstrained(v, p))];
}

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

    it('lists every tool to a key with every scope, each with title, description, schemas and annotations', async () => {
      // Per-object tools show to keys holding an objects:<key>:* scope, which `all` does not grant: name one.
      const client = await connect(org, 'all,objects:demo:read,objects:demo:write');
      const tools = await client.listTools();
      const expected = h.gateway.operations.filter((e) => !e.operation.absent?.mcp).map((e) => e.operation.name);
      expect(tools.map((t) => t.name).sort()).toEqual([...expected].sort());
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
          openWorldHint: expect.any(Boolean) as unknown,
        });
        // Strict inputs: an agent learns that unknown arguments are refused, and every argument says what it is.
        expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
        for (const [name, prop] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>)) {
          expect(prop.description, `${tool.name}.${name}`).toBeTruthy();
        }
        expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(/\\p\{|"not":\{\}/);
        // A schema with no keyword accepts anything (the Inspector's --strict warns): every value says what it is.
        expect(unconstrained(tool.inputSchema), `${tool.name} input`).toEqual([]);
        expect(unconstrained(tool.outputSchema ?? {}), `${tool.name} output`).toEqual([]);
      }
      const get = tools.find((t) => t.name === 'products_get');
      expect(get?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      const update = tools.find((t) => t.name === 'products_update');
      expect(update?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(Object.keys(update?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['sku', 'stock_qty', 'idempotency_key']));
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
      const updated = await client.call('products_update', { sku: 'TIRE-1', stock_qty: 40, name: 'All-season' });
      expect(updated.isError).toBeFalsy();
      expect(updated.structuredContent).toMatchObject({ product: { sku: 'TIRE-1', name: 'All-season', stock_qty: 40, stock_status: 'in_stock' } });

      const rest = await h.request({ method: 'GET', url: '/v1/products/TIRE-1', key: (await h.key(org, 'products:read')).key });
      expect(rest.json<{ product: unknown }>().product).toEqual((updated.structuredContent as { product: unknown }).product);
    });

    it('answers a call without the scope with isError and the REST message, even for a tool it does not list', async () => {
      const client = await connect(org, 'products:read');
      const result = await client.call('products_create', { sku: 'NOPE-1', name: 'Hidden' });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toBe('missing_scope: missing scope: products:write');
      expect(result.structuredContent).toEqual({ code: 'missing_scope', status: 403, message: 'missing scope: products:write', doc_url: 'docs/errors.md#missing_scope' });
    });

    it('refuses a NUL character in arguments with the REST message, on every dialect', async () => {
      const client = await connect(org, 'products:write');
      const result = await client.call('products_create', { sku: 'NUL-1', name: 'bad\u0000name' });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toBe('invalid_input: body.name: the NUL character (U+0000) is not allowed');
    });

    it('keeps organisations apart: another org gets not found, as REST says', async () => {
      const owner = await connect(org, 'products:write');
      expect((await owner.call('products_create', { sku: 'SECRET-1', name: 'Private' })).isError).toBeFalsy();
      const stranger = await connect(`${org}-b`, 'products:read,products:write');
      const got = await stranger.call('products_get', { sku: 'SECRET-1' });
      const rest = await h.request({ method: 'GET', url: '/v1/products/SECRET-1', key: (await h.key(`${org}-b`, 'products:read')).key });
      expect(got.isError).toBe(true);
      expect(got.content[0]?.text).toBe(`not_found: ${rest.json<{ error: string }>().error}`);
      expect((await stranger.call('products_update', { sku: 'SECRET-1', name: 'Mine' })).isError).toBe(true);
      expect((await stranger.call('products_list', {})).structuredContent).toEqual({ products: [], next_cursor: null });
    });

    it('answers a conflict with isError and the REST message', async () => {
      const client = await connect(org, 'products:write');
      await client.call('products_create', { sku: 'DUP-1', name: 'First' });
      const again = await client.call('products_create', { sku: 'dup-1', name: 'Second' });
      expect(again.isError).toBe(true);
      expect(again.content[0]?.text).toBe('already_exists: product dup-1 already exists');
      expect(again.structuredContent).toMatchObject({ code: 'already_exists', status: 409, param: 'sku' });
    });

    it('answers invalid tool input with an error naming the field', async () => {
      const client = await connect(org, 'products:write');
      const missing = await client.call('products_create', { sku: 'BAD-1' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0]?.text).toMatch(/name/);
      const derived = await client.call('products_update', { sku: 'BAD-1', stock_status: 'in_stock' });
      expect(derived.isError).toBe(true);
      expect(derived.content[0]?.text).toMatch(/stock_status/);
      expect(derived.structuredContent).toMatchObject({ code: 'invalid_input', status: 400 });
    });

    it('replays a create retried with the same idempotency_key instead of running it twice', async () => {
      const client = await connect(org, 'products:read,products:write');
      const args = { sku: 'IDEM-1', name: 'Retry-safe', idempotency_key: `mcp-${kind.label.replace(/[^a-z0-9]+/g, '-')}` };
      const first = await client.call('products_create', args);
      expect(first.isError).toBeFalsy();
      const again = await client.call('products_create', { name: 'Retry-safe', sku: 'IDEM-1', idempotency_key: args.idempotency_key });
      expect(again.isError, again.content[0]?.text).toBeFalsy();
      expect(again.structuredContent).toEqual(first.structuredContent);
      const other = await client.call('products_create', { sku: 'IDEM-2', name: 'Other', idempotency_key: args.idempotency_key });
      expect(other.structuredContent).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    });

    it('refuses an unknown argument as REST refuses an unknown field, instead of dropping it', async () => {
      const client = await connect(org, 'products:read,products:write');
      const res = await client.call('products_get', { sku: 'TIRE-1', reason: 'x' });
      expect(res.isError).toBe(true);
      expect(res.structuredContent).toMatchObject({ code: 'invalid_input', status: 400 });
      const rest = await h.request({ method: 'GET', url: '/v1/products/TIRE-1?reason=x', key: (await h.key(org, 'products:read')).key });
      expect(rest.statusCode).toBe(400);
      expect((res.structuredContent as { details: unknown }).details).toEqual(rest.json<{ details: unknown }>().details);
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
