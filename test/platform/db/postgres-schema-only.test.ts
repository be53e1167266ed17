import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.js';
import { migrateToLatest } from '../../../src/platform/db/migrate.js';
import { MODULES } from '../../../src/modules/index.js';
import { dialects } from '../../support/harness.js';

/**
 * The gateway looks only at its own schema. Kysely's own introspector reads every schema of the database and resolves
 * each table by name, so a schema another process dropped meanwhile failed migrations with 3F000 (seen in CI, with
 * another test file's schema). Here: only this schema is seen, with a role that may not use the others.
 */
describe.skipIf(!dialects.includes('postgres'))('PostgreSQL: the gateway reads only its own schema', () => {
  const url = process.env.TEST_DATABASE_URL ?? '';
  const tag = randomBytes(5).toString('hex');
  const role = `gw_role_${tag}`;
  const own = `gw_own_${tag}`;
  const foreign = `gw_foreign_${tag}`;
  const admin = new pg.Client({ connectionString: url });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`create role ${role} login`);
    await admin.query(`create schema ${own} authorization ${role}`);
    // Another application's schema in the same database, with a serial column, that this role may not use.
    await admin.query(`create schema ${foreign}`);
    await admin.query(`create table ${foreign}.things (id serial primary key)`);
  });
  afterAll(async () => {
    await admin.query(`drop schema if exists ${own} cascade`);
    await admin.query(`drop schema if exists ${foreign} cascade`);
    await admin.query(`drop role if exists ${role}`);
    await admin.end();
  });

  it('migrates with a role that may not use another schema of the database, and lists only its own tables', async () => {
    const asRole = new URL(url);
    asRole.username = role;
    asRole.password = '';
    const handle = openDatabase(asRole.toString(), { schema: own });
    try {
      const applied = await migrateToLatest(handle.db, MODULES);
      expect(applied.length).toBeGreaterThan(30);
      const tables = await handle.db.introspection.getTables();
      expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([own]));
      expect(tables.map((t) => t.name)).toContain('orders');
      expect(tables.map((t) => t.name)).not.toContain('kysely_migration');
      expect(await handle.db.introspection.getSchemas()).toEqual([{ name: own }]);
    } finally {
      await handle.close();
    }
  });
});
