import { type Kysely, type Migration, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { MODULES } from '../../../src/modules/index.js';
import { migrateToLatest, migrationsOf } from '../../../src/platform/db/migrate.js';
import type { ModuleDefinition } from '../../../src/platform/module-definition.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const BASELINE = ['0001_foundation', '0002_orders_outbox', '0003_warranty_objects', '0004_edi'];
/** What the gateway's modules run today: the baseline, then the modules' own (EDI's outbound profile, ...). */
const CURRENT = Object.keys(migrationsOf(MODULES));

const createTable = (name: string): Migration => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable(name)
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
  },
});

/** A throwaway module with a table of its own, the way a new module (telematics) brings one. */
const widgets: ModuleDefinition = {
  name: 'widgets',
  tag: { name: 'widgets', description: 'test module' },
  operations: () => [],
  migrations: { '9001_widgets': createTable('widgets') },
};

async function ran(h: Harness): Promise<string[]> {
  const result = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(h.gateway.database.db);
  return result.rows.map((r) => r.name);
}

describe('module migrations: names', () => {
  it('keeps the baseline names deployed databases ran, and adds modules\' after them', () => {
    expect(CURRENT.slice(0, BASELINE.length)).toEqual(BASELINE);
    expect(CURRENT.slice(BASELINE.length).every((name) => /^\d{4}_[a-z]+(_[a-z0-9_]+)?$/.test(name) && name > '0004')).toBe(true);
    expect(Object.keys(migrationsOf([...MODULES, widgets]))).toEqual([...CURRENT, '9001_widgets']);
  });

  it('refuses a migration not named after its module, and a name declared twice', () => {
    const gadgets = { name: 'gadgets', migrations: { '9001_widgets': createTable('x') } };
    expect(() => migrationsOf([gadgets])).toThrow('migration 9001_widgets of module gadgets must be named NNNN_gadgets[_<what>]');
    // Sibling modules of one folder (edi-partners, edi-messages) may name theirs after the folder, and only it.
    expect(Object.keys(migrationsOf([{ name: 'shop-carts', migrations: { '9001_shop_old': createTable('a'), '9002_shop_carts_x': createTable('b') } }]))).toContain('9001_shop_old');
    expect(() => migrationsOf([{ name: 'shop-carts', migrations: { '9003_carts': createTable('c') } }])).toThrow(/must be named NNNN_shop_carts/);
    expect(() => migrationsOf([{ name: 'widgets', migrations: { widgets_1: createTable('x') } }])).toThrow(/must be named NNNN_widgets/);
    expect(() => migrationsOf([widgets, widgets])).toThrow('migration 9001_widgets is declared twice');
  });
});

describe.each(dialects)('module migrations (%s)', (dialect) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("runs a module's migration with the platform's on a fresh database", async () => {
    h = await startHarness(dialect, { modules: [...MODULES, widgets] });
    expect(await ran(h)).toEqual([...CURRENT, '9001_widgets']);
    const org = await h.org('acme');
    await sql`insert into widgets (org_id, name) values (${org.id}, ${'sprocket'})`.execute(h.gateway.database.db);
    expect((await sql<{ name: string }>`select name from widgets`.execute(h.gateway.database.db)).rows).toEqual([{ name: 'sprocket' }]);
  });

  it('runs only the new module migration on a database that ran the rest, once', async () => {
    h = await startHarness(dialect);
    expect(await ran(h)).toEqual(CURRENT);
    const db = h.gateway.database.db;
    expect(await migrateToLatest(db, [...MODULES, widgets])).toEqual(['9001_widgets']);
    expect(await migrateToLatest(db, [...MODULES, widgets])).toEqual([]);
    expect(await ran(h)).toEqual([...CURRENT, '9001_widgets']);
  });

  it('refuses a module migration that sorts before one the database already ran, and runs nothing', async () => {
    h = await startHarness(dialect);
    const late = { name: 'late', migrations: { '0003_late': createTable('late') } };
    await expect(migrateToLatest(h.gateway.database.db, [...MODULES, late])).rejects.toThrow(/0003_late/);
    expect(await ran(h)).toEqual(CURRENT);
  });
});
