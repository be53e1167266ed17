import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotMap } from '../../../src/modules/objects/field-slots.js';
import { type FilterShape, parseFilters } from '../../../src/modules/objects/filters.js';
import { rowsQuery } from '../../../src/modules/objects/objects.repository.js';
import type { FieldDefinition } from '../../../src/modules/objects/objects.schemas.js';
import { explainQuery } from '../../../src/platform/db/explain.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

/**
 * Filtering must stay fast at 1,000,000 rows (bench/objects.bench.ts times that). A test cannot time it, so it pins
 * the plan instead: every filter type is answered from its slot index, never by scanning the object's rows.
 */
const definition = {
  key: 'plan',
  label: 'Plan check',
  read_scope: 'objects:plan:read',
  write_scope: 'objects:plan:write',
  key_field: 'code',
  fields: [
    { name: 'code', type: 'string', required: true },
    { name: 'make', type: 'string', filterable: true },
    { name: 'year', type: 'integer', filterable: true },
    { name: 'score', type: 'number', filterable: true },
    { name: 'oe', type: 'boolean', filterable: true },
    { name: 'released_on', type: 'date', filterable: true },
    { name: 'checked_at', type: 'datetime', filterable: true },
    { name: 'season', type: 'enum', enum_values: ['summer', 'winter', 'all_season', 'studded'], filterable: true },
  ],
};

const ROWS = 20_000;
const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + (i % 1000) * 86_400_000);
const row = (i: number) => ({
  code: `C${i}`,
  make: `make-${i % 200}`,
  year: 1900 + (i % 150),
  score: (i % 400) / 4,
  oe: i % 100 === 0,
  released_on: day(i).toISOString().slice(0, 10),
  checked_at: new Date(day(i).getTime() + (i % 24) * 3_600_000).toISOString(),
  season: i % 50 === 0 ? 'studded' : (['summer', 'winter', 'all_season'] as const)[i % 3],
});

describe.each(dialects)('dynamic object query plans (%s)', (dialect) => {
  let h: Harness;
  let orgId: string;
  let objectId: string;
  let shape: FilterShape;
  beforeAll(async () => {
    h = await startHarness(dialect);
    orgId = (await h.org('plan-org')).id;
    await h.gateway.services.objects.define('plan-org', definition);
    const key = (await h.key('plan-org', 'objects:plan:write', { rateLimit: 100_000 })).key;
    for (let start = 0; start < ROWS; start += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) => row(start + i));
      const res = await h.request({ method: 'POST', url: '/v1/objects/plan', key, payload: { rows } });
      expect(res.statusCode, res.body).toBe(200);
      // Each write at its own time, so the sync order (updated_since) has times to seek.
      h.clock.advance(1000);
    }
    const stored = await h.gateway.database.db
      .selectFrom('object_definitions')
      .select(['id', 'slots', 'fields'])
      .where('org_id', '=', orgId)
      .executeTakeFirstOrThrow();
    objectId = stored.id;
    shape = { key: 'plan', key_field: 'code', fields: JSON.parse(stored.fields) as FieldDefinition[], slots: JSON.parse(stored.slots) as SlotMap };
    // PostgreSQL plans from statistics; autovacuum would gather them within a minute, the test cannot wait.
    if (dialect === 'postgres') await sql`analyze object_rows`.execute(h.gateway.database.db);
  }, 120_000);
  afterAll(async () => h.close());

  const planFor = (params: Record<string, string>, afterId?: number) => {
    const filters = parseFilters(shape, params);
    return explainQuery(h.gateway.database, rowsQuery(h.gateway.database.db, orgId, objectId, filters, afterId === undefined ? {} : { afterId }, 101));
  };
  const indexOf = (field: string) => (field === 'code' ? 'object_rows_key_uq' : `object_rows_${shape.slots[field] ?? '?'}_idx`);

  const expectIndex = (plan: string[], index: string) => {
    const text = plan.join('\n');
    if (dialect === 'sqlite') {
      expect(text, text).toMatch(new RegExp(`SEARCH object_rows USING (COVERING )?INDEX ${index} \\(object_id=\\? AND \\w+=\\?`));
      // The index hands rows over in id order: no sort step before the LIMIT.
      expect(text, text).not.toMatch(/TEMP B-TREE/);
    } else {
      expect(text, text).toContain(index);
      expect(text, text).not.toMatch(/Seq Scan/);
    }
  };

  it.each([
    ['string', 'make', 'make-17'],
    ['integer', 'year', '1999'],
    ['number', 'score', '12.5'],
    ['boolean', 'oe', 'true'],
    ['date', 'released_on', '2021-03-04'],
    ['datetime', 'checked_at', '2021-03-04T05:00:00Z'],
    ['enum', 'season', 'studded'],
    ['key field', 'code', 'C4242'],
  ])('answers a %s filter from its index', async (_type, field, value) => {
    expectIndex(await planFor({ [field]: value }), indexOf(field));
  });

  it('answers ANDed filters and later pages from an index', async () => {
    const plan = await planFor({ make: 'make-17', season: 'studded', year: '1917' }, 5000);
    const text = plan.join('\n');
    expect(text).toMatch(/object_rows_(s|n)\d_idx|object_rows_key_uq/);
    expect(text).not.toMatch(dialect === 'sqlite' ? /SCAN object_rows/ : /Seq Scan/);
  });

  it('pages the sync order (updated_since) along its index, sought to the cursor, with no sort', async () => {
    const after = { at: new Date(h.clock.now().getTime() - 10_000).toISOString(), id: 10_500 };
    const since = { column: 'updated_at', since: '2000-01-01T00:00:00.000Z', after } as const;
    const text = (await explainQuery(h.gateway.database, rowsQuery(h.gateway.database.db, orgId, objectId, { text: [], number: [] }, { since }, 101))).join('\n');
    if (dialect === 'sqlite') {
      expect(text, text).toMatch(/SEARCH object_rows USING INDEX object_rows_updated_idx \(object_id=\? AND .*>/);
      expect(text, text).not.toMatch(/TEMP B-TREE/);
    } else {
      expect(text, text).toMatch(/object_rows_updated_idx[\s\S]*Index Cond: .*>/);
      expect(text, text).not.toMatch(/Seq Scan|Sort/);
    }
  });

  it('pages an unfiltered object along its primary key', async () => {
    const text = (await planFor({})).join('\n');
    expect(text).toMatch(dialect === 'sqlite' ? /SEARCH object_rows USING INDEX sqlite_autoindex_object_rows_1 \(object_id=\?\)/ : /object_rows_pk/);
  });
});
