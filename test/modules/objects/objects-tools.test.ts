import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { clientKinds, listen, type McpTestClient } from '../../mcp/support/mcp-clients.js';
import { fitments, priceList, visits } from './fixtures.js';

const kind = clientKinds[0];

describe.each(dialects)('dynamic objects over MCP (%s)', (dialect) => {
  let h: Harness;
  let url: string;
  const opened: McpTestClient[] = [];
  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
    for (const def of [fitments, priceList, visits]) await h.gateway.services.objects.define('acme', def);
    url = await listen(h);
  });
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.close()));
    await h.close();
  });

  const connect = async (scopes: string) => {
    if (!kind) throw new Error('no MCP client kind');
    const client = await kind.connect(url, (await h.key('acme', scopes, { rateLimit: 100_000 })).key);
    opened.push(client);
    return client;
  };
  const textOf = (r: { content: { text?: string }[] }) => r.content[0]?.text ?? '';

  it('shows the object tools only to keys holding object scopes of the kind', async () => {
    const names = async (scopes: string) => (await (await connect(scopes)).listTools()).map((t) => t.name).filter((n) => n.startsWith('objects_')).sort();
    expect(await names('products:read')).toEqual([]);
    expect(await names('objects:fitments:read')).toEqual(['objects_list_definitions', 'objects_query']);
    expect(await names('objects:fitments:read,objects:fitments:write')).toEqual(['objects_list_definitions', 'objects_query', 'objects_write']);
  });

  it('lists only the definitions the key can read, with their row schema', async () => {
    const client = await connect('objects:fitments:read,objects:visits:write');
    const result = await client.call('objects_list_definitions', {});
    expect(result.isError).toBeFalsy();
    const objects = (result.structuredContent as { objects: { key: string; writable: boolean; row_schema: { properties: Record<string, unknown> } }[] }).objects;
    expect(objects.map((o) => [o.key, o.writable])).toEqual([['fitments', false]]);
    expect(objects[0]?.row_schema.properties.season).toEqual({ anyOf: [{ type: 'string', enum: ['summer', 'winter', 'all_season'] }, { type: 'null' }] });
    expect(objects[0]?.row_schema.properties.year).toEqual({ anyOf: [{ type: 'integer', minimum: 1950, maximum: 2100 }, { type: 'null' }] });
  });

  it('writes and queries with typed filters checked against the definition at call time', async () => {
    const client = await connect('objects:fitments:read,objects:fitments:write');
    const written = await client.call('objects_write', {
      object: 'fitments',
      rows: [
        { fitment_id: 'M1', make: 'Audi', year: 2020, oe: true },
        { fitment_id: 'M2', make: 'Audi', year: 2021, oe: false },
      ],
    });
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(written.structuredContent).toMatchObject({ written: 2 });

    const found = await client.call('objects_query', { object: 'fitments', filters: { make: 'Audi', year: 2020, oe: true } });
    expect(found.isError, textOf(found)).toBeFalsy();
    expect(found.structuredContent).toMatchObject({ rows: [{ fitment_id: 'M1', year: 2020, oe: true }], next_cursor: null });

    const paged = await client.call('objects_query', { object: 'fitments', filters: { make: 'Audi' }, limit: 1 });
    const page = paged.structuredContent as { rows: { fitment_id: string }[]; next_cursor: string };
    expect(page.rows.map((r) => r.fitment_id)).toEqual(['M1']);
    const next = await client.call('objects_query', { object: 'fitments', filters: { make: 'Audi' }, cursor: page.next_cursor });
    expect((next.structuredContent as { rows: { fitment_id: string }[] }).rows.map((r) => r.fitment_id)).toEqual(['M2']);
  });

  it('answers bad filters, bad rows, read-only objects and missing scopes with isError and the REST message', async () => {
    const client = await connect('objects:fitments:read,objects:fitments:write,objects:prices:read');
    expect(textOf(await client.call('objects_query', { object: 'fitments', filters: { year: 'soon' } }))).toBe('invalid filter: year: must be a whole number');
    expect(textOf(await client.call('objects_query', { object: 'fitments', filters: { notes: 'x' } }))).toMatch(/notes: is not filterable/);
    expect(textOf(await client.call('objects_query', { object: 'nothing' }))).toBe('object nothing not found');
    expect(textOf(await client.call('objects_query', { object: 'visits' }))).toBe('missing scope: objects:visits:read');

    const bad = await client.call('objects_write', { object: 'fitments', rows: [{ fitment_id: 'OK', make: 'x' }, { fitment_id: 'BAD', year: 'new' }] });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe('1 of 2 rows are invalid, nothing was written: row 1 make: is required; row 1 year: must be a whole number');
    const none = await client.call('objects_query', { object: 'fitments', filters: { fitment_id: 'OK' } });
    expect((none.structuredContent as { rows: unknown[] }).rows).toEqual([]);

    expect(textOf(await client.call('objects_write', { object: 'price-list', rows: [{ sku: 'A', price: 1 }] }))).toBe('object price-list is read-only');
    const reader = await connect('objects:fitments:read');
    expect(textOf(await reader.call('objects_write', { object: 'fitments', rows: [{ fitment_id: 'R', make: 'x' }] }))).toBe('missing scope: objects:fitments:write');
  });
});
