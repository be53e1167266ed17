import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { SlotMap } from '../src/modules/objects/field-slots.js';
import { parseFilters } from '../src/modules/objects/filters.js';
import { rowsQuery } from '../src/modules/objects/objects.repository.js';
import type { FieldDefinition } from '../src/modules/objects/objects.schemas.js';
import type { AuthContext } from '../src/platform/auth/scopes.js';
import { explainQuery } from '../src/platform/db/explain.js';
import { inProcessGateway, median } from './support.js';

export interface ObjectsFilterBench {
  dialect: 'sqlite' | 'postgres';
  /** Rows in the one object the filters run against. */
  rows: number;
  /** Writing them through ObjectsService.write, 1,000 rows (one transaction) per call, validation included. */
  seedMs: number;
  /** The slowest of the filter cases' medians: the goal is that no filter type degrades with size. */
  filterMs: number;
  /** First page (limit 100) of each filtered query through ObjectsService.query, median of `runs`. */
  filters: { query: string; medianMs: number; returned: number; plan: string[] }[];
}

const fields: FieldDefinition[] = [
  { name: 'code', type: 'string', required: true, filterable: false },
  { name: 'make', type: 'string', required: false, filterable: true },
  { name: 'year', type: 'integer', required: false, filterable: true },
  { name: 'score', type: 'number', required: false, filterable: true },
  { name: 'oe', type: 'boolean', required: false, filterable: true },
  { name: 'released_on', type: 'date', required: false, filterable: true },
  { name: 'checked_at', type: 'datetime', required: false, filterable: true },
  { name: 'season', type: 'enum', required: false, filterable: true, enum_values: ['summer', 'winter', 'all_season', 'studded'] },
];
const definition = { key: 'fitments', label: 'Bench fitments', read_scope: 'objects:fitments:read', write_scope: 'objects:fitments:write', key_field: 'code', fields };

const SEASONS = ['summer', 'winter', 'all_season'] as const;
const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + (i % 1000) * 86_400_000);
/** Values spread so that each filter below matches 0.1%-2% of the rows, as catalogue lookups do. */
const row = (i: number) => ({
  code: `C${i}`,
  make: `make-${i % 200}`,
  year: 1900 + (i % 150),
  score: (i % 400) / 4,
  oe: i % 100 === 0,
  released_on: day(i).toISOString().slice(0, 10),
  checked_at: new Date(day(i).getTime() + (i % 24) * 3_600_000).toISOString(),
  season: i % 50 === 0 ? 'studded' : SEASONS[i % 3],
});

const QUERIES: Record<string, string>[] = [
  { make: 'make-17' },
  { year: '1999' },
  { score: '12.5' },
  { oe: 'true' },
  { released_on: '2021-03-04' },
  { checked_at: '2021-03-04T04:00:00Z' },
  { season: 'studded' },
  { code: 'C424242' },
  // The worst case for one index per query: two filters whose rows never meet (every make-17 row is checked).
  { make: 'make-17', season: 'studded' },
  { oe: 'true', season: 'summer', year: '1900' },
];

/**
 * Seeds one object with `rows` rows (default 1,000,000) in a fresh database (SQLite by default; a PostgreSQL URL runs
 * in a throwaway schema) and times filtered first-page queries of every field type.
 */
export async function benchObjectsFilter(opts: { rows?: number; databaseUrl?: string; runs?: number } = {}): Promise<ObjectsFilterBench> {
  const total = opts.rows ?? 1_000_000;
  const runs = opts.runs ?? 25;
  const bench = await inProcessGateway('objects', opts.databaseUrl);
  const { gateway, postgres } = bench;
  try {
    const org = await gateway.services.orgs.create('bench');
    await gateway.services.objects.define('bench', definition);
    const auth: AuthContext = { orgId: org.id, keyId: 'key_bench', scopes: new Set(['objects:fitments:read', 'objects:fitments:write']), source: 'api' };

    const seedStart = performance.now();
    for (let start = 0; start < total; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, total - start) }, (_, i) => row(start + i));
      await gateway.database.db.transaction().execute((tx) => gateway.services.objects.write(tx, auth, 'fitments', { rows }));
    }
    const seedMs = performance.now() - seedStart;
    if (postgres) await sql`analyze object_rows`.execute(gateway.database.db);

    const stored = await gateway.database.db.selectFrom('object_definitions').select(['id', 'slots']).where('org_id', '=', org.id).executeTakeFirstOrThrow();
    const shape = { key: 'fitments', fields, key_field: 'code', slots: JSON.parse(stored.slots) as SlotMap };
    const filters: ObjectsFilterBench['filters'] = [];
    for (const params of QUERIES) {
      let returned = 0;
      const times: number[] = [];
      for (let i = 0; i < runs + 3; i++) {
        const t = performance.now();
        returned = (await gateway.services.objects.query(gateway.database.db, auth, 'fitments', params, { limit: 100 })).rows.length;
        if (i >= 3) times.push(performance.now() - t);
      }
      const query = rowsQuery(gateway.database.db, org.id, stored.id, parseFilters(shape, params), {}, 101);
      filters.push({ query: new URLSearchParams(params).toString(), medianMs: median(times), returned, plan: await explainQuery(gateway.database, query) });
    }
    return { dialect: postgres ? 'postgres' : 'sqlite', rows: total, seedMs, filterMs: Math.max(...filters.map((f) => f.medianMs)), filters };
  } finally {
    await bench.close();
  }
}
