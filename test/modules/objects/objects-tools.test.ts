import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { clientKinds, listen, type McpTestClient, type ToolResult } from '../../mcp/support/mcp-clients.js';
import { fitments, priceList, visits } from './fixtures.js';
import { toolErrorOf } from '../../support/operations.js';

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
  const errorOf = (r: ToolResult) => {
    expect(r.isError, textOf(r)).toBe(true);
    return r.structuredContent as { code: string; status: number; message: string; details?: unknown };
  };
  const rowsOf = (r: ToolResult) => (r.structuredContent as { rows: Record<string, unknown>[] }).rows;

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

  it('answers bad filters, bad rows, read-only objects and missing scopes with isError, "<code>: <message>" and the REST error', async () => {
    const client = await connect('objects:fitments:read,objects:fitments:write,objects:prices:read');
    expect(textOf(await client.call('objects_query', { object: 'fitments', filters: { year: 'soon' } }))).toBe('invalid_input: invalid filter: year: must be a whole number');
    expect(textOf(await client.call('objects_query', { object: 'fitments', filters: { notes: 'x' } }))).toMatch(/^invalid_input: invalid filter: notes: is not filterable/);
    expect(textOf(await client.call('objects_query', { object: 'nothing' }))).toBe('not_found: object nothing not found');
    expect(textOf(await client.call('objects_query', { object: 'visits' }))).toBe('missing_scope: missing scope: objects:visits:read');
    expect(errorOf(await client.call('objects_query', { object: 'fitments', filters: { year: 'soon' } }))).toEqual({
      code: 'invalid_input',
      status: 400,
      message: 'invalid filter: year: must be a whole number',
      details: [{ path: 'year', message: 'must be a whole number' }],
      param: 'year',
      doc_url: 'docs/errors.md#invalid_input',
    });

    const bad = await client.call('objects_write', { object: 'fitments', rows: [{ fitment_id: 'OK', make: 'x' }, { fitment_id: 'BAD', year: 'new' }] });
    expect(textOf(bad)).toBe('row_invalid: 1 of 2 rows are invalid, nothing was written: row 1 make: is required; row 1 year: must be a whole number');
    expect(errorOf(bad)).toMatchObject({ code: 'row_invalid', status: 422, details: [{ row: 1, field: 'make', message: 'is required' }, { row: 1, field: 'year', message: 'must be a whole number' }] });
    const none = await client.call('objects_query', { object: 'fitments', filters: { fitment_id: 'OK' } });
    expect(rowsOf(none)).toEqual([]);

    expect(textOf(await client.call('objects_write', { object: 'price-list', rows: [{ sku: 'A', price: 1 }] }))).toBe('method_not_allowed: object price-list is read-only');
    const reader = await connect('objects:fitments:read');
    expect(textOf(await reader.call('objects_write', { object: 'fitments', rows: [{ fitment_id: 'R', make: 'x' }] }))).toBe('missing_scope: missing scope: objects:fitments:write');
  });

  it('lists the arguments, honest hints and the per-object scope', async () => {
    const tools = (await (await connect('objects:fitments:read,objects:fitments:write')).listTools()).filter((t) => t.name.startsWith('objects_'));
    const byName = new Map(tools.map((t) => [t.name, t]));
    const argsOf = (name: string) => Object.keys(byName.get(name)?.inputSchema.properties ?? {}).sort();
    expect(argsOf('objects_list_definitions')).toEqual([]);
    expect(argsOf('objects_query')).toEqual(['cursor', 'filters', 'limit', 'object', 'updated_since']);
    expect(byName.get('objects_query')?.inputSchema.required).toEqual(['object']);
    expect(argsOf('objects_write')).toEqual(['idempotency_key', 'object', 'rows']);
    expect(byName.get('objects_write')?.inputSchema.required).toEqual(['object', 'rows']);
    expect(byName.get('objects_query')?.description).toContain('Required scope: objects:<key>:read.');
    expect(byName.get('objects_write')?.description).toContain('Required scope: objects:<key>:write.');

    const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    expect(byName.get('objects_list_definitions')?.annotations).toMatchObject(read);
    expect(byName.get('objects_query')?.annotations).toMatchObject(read);
    // Replaces rows whose key exists; appends on objects without a key field, so the same call twice is not the same state.
    expect(byName.get('objects_write')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
  });

  it('refuses unknown arguments and misplaced filters rather than dropping them', async () => {
    const client = await connect('objects:fitments:read,objects:fitments:write');
    // A filter given flat, beside `object`, would otherwise be silently ignored.
    const flat = errorOf(await client.call('objects_query', { object: 'fitments', make: 'Audi' }));
    expect(flat).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(flat.details).toEqual([{ path: 'make', message: 'is unknown' }]);
    expect(flat).toMatchObject({ param: 'make', message: 'invalid arguments: make: is unknown' });
    for (const reserved of ['limit', 'cursor', 'updated_since']) {
      const err = errorOf(await client.call('objects_query', { object: 'fitments', filters: { [reserved]: '1' } }));
      expect(err.message).toBe('invalid arguments: filters: limit, cursor and updated_since are arguments, not filters');
    }
    expect(errorOf(await client.call('objects_query', { object: 'fitments', limit: 0 })).code).toBe('invalid_input');
    expect(errorOf(await client.call('objects_query', { object: 'fitments', filters: { make: ['Audi'] } })).code).toBe('invalid_input');
    // Read-only tools take no idempotency key: there it is an unknown argument like any other.
    expect(errorOf(await client.call('objects_query', { object: 'fitments', idempotency_key: 'k-1' })).code).toBe('invalid_input');
    expect(errorOf(await client.call('objects_list_definitions', { object: 'fitments' })).code).toBe('invalid_input');

    // objects_write's arguments are REST's path and body merged: an unknown one is refused with REST's details.
    const rows = [{ fitment_id: 'U1', make: 'x' }];
    const viaMcp = errorOf(await client.call('objects_write', { object: 'fitments', rows, upsert: false }));
    const key = (await h.key('acme', 'objects:fitments:write')).key;
    const viaRest = await h.request({ method: 'POST', url: '/v1/objects/fitments', key, payload: { rows, upsert: false } });
    expect(viaRest.statusCode).toBe(400);
    expect(viaMcp).toEqual(toolErrorOf(viaRest.json()));
    expect(rowsOf(await client.call('objects_query', { object: 'fitments', filters: { fitment_id: 'U1' } }))).toEqual([]);
  });

  it.each([
    ['a right-to-left override', 'fit\u202Ements'],
    ['a zero-width space', 'fitments\u200B'],
    ['a capital letter', 'Fitments'],
    ['a space', 'fit ments'],
    ['nothing', ''],
  ])('refuses an object key with %s as invalid input', async (_label, object) => {
    const client = await connect('objects:fitments:read,objects:fitments:write');
    for (const result of [
      await client.call('objects_query', { object }),
      await client.call('objects_write', { object, rows: [{ fitment_id: 'X1', make: 'x' }] }),
    ]) {
      const err = errorOf(result);
      expect(err.code).toBe('invalid_input');
      expect(err.message).toContain('object must be an object key');
    }
  });

  it('replays objects_write sent again with the same idempotency_key: the rows are written once', async () => {
    const client = await connect('objects:visits:read,objects:visits:write');
    const count = async () => rowsOf(await client.call('objects_query', { object: 'visits', filters: { plate: 'IDEM-1' } })).length;
    const args = { object: 'visits', rows: [{ plate: 'IDEM-1', odometer: 5 }], idempotency_key: `objects-mcp-${dialect}` };
    const first = await client.call('objects_write', args);
    expect(first.isError, textOf(first)).toBeFalsy();
    const again = await client.call('objects_write', args);
    expect(again.structuredContent).toEqual(first.structuredContent);
    // visits has no key field: without the key, the same rows twice append twice.
    expect(await count()).toBe(1);

    // The key is shared with REST's Idempotency-Key.
    const key = (await h.key('acme', 'objects:visits:write')).key;
    const viaRest = await h.request({ method: 'POST', url: '/v1/objects/visits', key, payload: { rows: args.rows }, headers: { 'idempotency-key': args.idempotency_key } });
    expect(viaRest.statusCode, viaRest.body).toBe(200);
    expect(viaRest.headers['idempotent-replayed']).toBe('true');
    expect(await count()).toBe(1);

    const other = errorOf(await client.call('objects_write', { ...args, rows: [{ plate: 'IDEM-2' }] }));
    expect(other.code).toBe('idempotency_key_reused');
    expect(await count()).toBe(1);
  });
});
