import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODULES } from '../../../src/modules/index.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

// The gateway as it was before products had a size: every module's migrations before 0036_products_tire_size.
const TIRE_SIZE = '0036_products_tire_size';
const BEFORE = MODULES.map((m) => ({ ...m, migrations: Object.fromEntries(Object.entries(m.migrations ?? {}).filter(([name]) => name < TIRE_SIZE)) }));
const FROM_TIRE_SIZE = MODULES.flatMap((m) => Object.keys(m.migrations ?? {})).filter((name) => name >= TIRE_SIZE).sort();

/** More products than the migration reads at once, over two orgs, so the fill crosses a batch and an org boundary. */
const PER_ORG = 300;

describe.each(dialects)('0036_products_tire_size on a catalog that exists (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect, { modules: BEFORE });
  });
  afterAll(() => h.close());

  it('reads the size of every existing product from its name, and size search finds them', async () => {
    const db = h.gateway.database.db;
    const at = '2026-06-01T12:00:00.000Z';
    for (const slug of ['old-a', 'old-b']) {
      const org = await h.org(slug);
      const rows = Array.from({ length: PER_ORG }, (_, i) => {
        const name = i % 3 === 0 ? `Touring ${205 + (i % 4) * 10}/55R16 91V` : i % 3 === 1 ? `Trail LT245/75R16 #${i}` : `Accessory ${i}`;
        return sql`(${org.id}, ${`SKU-${i}`}, ${`sku-${i}`}, ${name}, ${name.toLowerCase()}, ${null}, ${'active'}, ${10}, ${'in_stock'}, ${null}, ${at}, ${at})`;
      });
      await sql`insert into products (org_id, sku, sku_lower, name, name_lower, description, status, stock_qty, stock_status, bin_location, created_at, updated_at)
        values ${sql.join(rows)}`.execute(db);
    }

    expect(FROM_TIRE_SIZE[0]).toBe(TIRE_SIZE);
    expect(await migrateToLatest(db, MODULES)).toEqual(FROM_TIRE_SIZE);

    for (const slug of ['old-a', 'old-b']) {
      const { key } = await h.key(slug, 'products:read');
      const lt = await h.request({ method: 'GET', url: '/v1/products?q=lt245+75+16&limit=200', key });
      expect(lt.statusCode, lt.body).toBe(200);
      expect(lt.json<{ products: unknown[] }>().products).toHaveLength(PER_ORG / 3);
      // 0040 read each name's load index and speed rating too: `Touring 215/55R16 91V` is i = 9 (mod 12), 25 of them.
      const rated = async (q: string) => (await h.request({ method: 'GET', url: `/v1/products?${new URLSearchParams({ q, limit: '200' }).toString()}`, key })).json<{ products: unknown[] }>().products;
      expect(await rated('215/55R16 91V')).toHaveLength(25);
      expect(await rated('215/55R16 94V')).toHaveLength(0);
      const got = await h.request({ method: 'GET', url: '/v1/products/SKU-299', key });
      expect(got.json<{ product: { tire_size: string | null } }>().product.tire_size).toBe(null);
      const first = await h.request({ method: 'GET', url: '/v1/products/SKU-0', key });
      expect(first.json<{ product: { tire_size: string | null } }>().product.tire_size).toBe('205/55R16');
    }
  });
});
