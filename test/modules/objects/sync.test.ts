import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { callMcp } from '../../support/operations.js';
import { variant, visits } from './fixtures.js';

interface SyncPage {
  ok?: true;
  rows: Record<string, unknown>[];
  next_cursor: string | null;
  next_updated_since?: string;
}

/** Fields typed loosely, so a test can add any field. */
type Field = { name: string; type: string } & Record<string, unknown>;

const tags = {
  key: 'tags',
  label: 'Tire tags',
  read_scope: 'objects:tags:read',
  write_scope: 'objects:tags:write',
  key_field: 'tag',
  fields: [
    { name: 'tag', type: 'string', required: true },
    { name: 'color', type: 'string', filterable: true },
  ] as Field[],
};

/** A definition from before `updated_since` was reserved: made with another name, renamed in storage as it would stand. */
const legacy = {
  ...visits,
  key: 'legacy',
  read_scope: 'objects:legacy:read',
  write_scope: 'objects:legacy:write',
  fields: [...visits.fields, { name: 'since_old', type: 'string' }] as Field[],
};

/** updated_since on custom-object rows: a partner syncs an object incrementally, in write order, on REST and MCP alike. */
describe.each(dialects)('custom-object rows synced by time (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  const at: string[] = [];

  const get = async (qs: string, object = 'tags') => {
    const res = await h.request({ method: 'GET', url: `/v1/objects/${object}?${qs}`, key });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<SyncPage>();
  };
  const write = async (rows: object[], object = 'tags') => {
    const res = await h.request({ method: 'POST', url: `/v1/objects/${object}`, key, payload: { rows } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const tagsOf = (p: SyncPage) => p.rows.map((r) => r.tag);
  const step = () => {
    h.clock.advance(60_000);
    at.push(h.clock.now().toISOString());
  };

  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
    for (const def of [tags, legacy]) await h.gateway.services.objects.define('acme', def);
    await sql`update object_definitions set fields = replace(fields, '"since_old"', '"updated_since"') where key = 'legacy'`.execute(h.gateway.database.db);
    key = (await h.key('acme', 'objects:tags:read,objects:tags:write,objects:legacy:read,objects:legacy:write', { rateLimit: 100_000 })).key;
    // t0: A and B, t1: C, t2: A replaced (it moves to the end of the write order), t3: D.
    step();
    await write([{ tag: 'A', color: 'red' }, { tag: 'B', color: 'blue' }]);
    step();
    await write([{ tag: 'C', color: 'red' }]);
    step();
    await write([{ tag: 'A', color: 'green' }]);
    step();
    await write([{ tag: 'D', color: 'red' }]);
  });
  afterAll(() => h.close());

  it('lists the rows written at or after the instant, oldest write first, a replaced row at its new time', async () => {
    expect(tagsOf(await get('limit=10'))).toEqual(['A', 'B', 'C', 'D']);
    expect(tagsOf(await get(`updated_since=${at[0]}`))).toEqual(['B', 'C', 'A', 'D']);
    expect(tagsOf(await get(`updated_since=${at[1]}`))).toEqual(['C', 'A', 'D']);
    const plusTwo = new Date(Date.parse(at[2] ?? '') + 2 * 3600_000).toISOString().replace('.000Z', '+02:00');
    expect(tagsOf(await get(`updated_since=${encodeURIComponent(plusTwo)}`))).toEqual(['A', 'D']);
    expect(tagsOf(await get(`updated_since=${at[0]}&color=red`))).toEqual(['C', 'D']);
  });

  it('pages in that order and says where the next sync starts', async () => {
    const first = await get(`updated_since=${at[0]}&limit=3`);
    expect(tagsOf(first)).toEqual(['B', 'C', 'A']);
    expect(first.next_updated_since).toBe(at[2]);
    const second = await get(`updated_since=${at[0]}&limit=3&cursor=${first.next_cursor}`);
    expect(tagsOf(second)).toEqual(['D']);
    expect(second.next_cursor).toBeNull();
    expect(second.next_updated_since).toBe(at[3]);
    // Nothing since: the bound comes back, so a partner always has one to store.
    const later = new Date(Date.parse(at[3] ?? '') + 60_000).toISOString();
    expect(await get(`updated_since=${later}`)).toEqual({ ok: true, rows: [], next_cursor: null, next_updated_since: later });
    expect((await get('limit=10')).next_updated_since).toBeUndefined();
  });

  it('refuses a cursor of the other order, and an updated_since that is not an instant with a zone', async () => {
    const usual = await get('limit=1');
    expectError(await h.request({ method: 'GET', url: `/v1/objects/tags?limit=1&updated_since=${at[0]}&cursor=${usual.next_cursor}`, key }), 400, 'invalid_input');
    const synced = await get(`limit=1&updated_since=${at[0]}`);
    expectError(await h.request({ method: 'GET', url: `/v1/objects/tags?limit=1&cursor=${synced.next_cursor}`, key }), 400, 'invalid_input');
    for (const bad of ['yesterday', '2026-06-01', '2026-06-01T12:00:00', '']) {
      const body = expectError(await h.request({ method: 'GET', url: `/v1/objects/tags?updated_since=${encodeURIComponent(bad)}`, key }), 400, 'invalid_input');
      expect(body.error, bad).toMatch(/updated_since must be an ISO 8601 timestamp with a zone/);
    }
  });

  it('answers the same through the MCP tool, where updated_since is an argument and not a filter', async () => {
    const { ok: _ok, ...rest } = await get(`updated_since=${at[1]}&limit=2&color=red`);
    const tool = await callMcp(h, 'objects_query', { object: 'tags', filters: { color: 'red' }, updated_since: at[1], limit: 2 }, key);
    expect(tool.isError, tool.text).toBe(false);
    expect(tool.payload).toEqual(rest);
    const asFilter = await callMcp(h, 'objects_query', { object: 'tags', filters: { updated_since: at[1] } }, key);
    expect(asFilter).toMatchObject({ isError: true, status: 400 });
    expect(asFilter.text).toMatch(/limit, cursor and updated_since are arguments, not filters/);
    expect(await callMcp(h, 'objects_query', { object: 'tags', updated_since: 'last week' }, key)).toMatchObject({ isError: true, status: 400 });
  });

  it('refuses updated_since as a new field name', async () => {
    const reserved = variant(tags, (d) => d.fields.push({ name: 'updated_since', type: 'string' }));
    await expect(h.gateway.services.objects.define('acme', reserved)).rejects.toThrow(/updated_since is reserved: limit, cursor and updated_since are query parameters/);
  });

  it('keeps an object defined with an updated_since field before: rows read and write, the parameter is refused naming the field', async () => {
    await write([{ plate: 'AB-123', odometer: 10, updated_since: 'kept' }], 'legacy');
    expect((await get('plate=AB-123', 'legacy')).rows).toEqual([{ plate: 'AB-123', odometer: 10, updated_since: 'kept' }]);
    const clash = expectError(await h.request({ method: 'GET', url: `/v1/objects/legacy?updated_since=${at[0]}`, key }), 400, 'invalid_input');
    expect(clash.error).toMatch(/object legacy: it has a field named updated_since.*the operator must rename the field/);
    expect(clash.param).toBe('updated_since');
    // The operator's next define must rename it; with it renamed, the object syncs.
    await expect(h.gateway.services.objects.define('acme', variant(legacy, (d) => d.fields.splice(2, 1, { name: 'updated_since', type: 'string' })))).rejects.toThrow(/updated_since is reserved/);
    await h.gateway.services.objects.define('acme', legacy);
    expect((await get(`updated_since=${at[0]}`, 'legacy')).rows).toEqual([{ plate: 'AB-123', odometer: 10, since_old: null }]);
  });
});
