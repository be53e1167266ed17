import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../../src/platform/db/database.js';
import { PreparedList, PreparedQuery } from '../../../src/platform/db/prepared-query.js';
import type { Tx } from '../../../src/platform/db/schema.js';
import { bindTransaction } from '../../../src/platform/db/sqlite-dialect.js';
import { dialects } from '../../support/harness.js';

describe.each(dialects)('PreparedQuery (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      const url = process.env.TEST_DATABASE_URL ?? '';
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      // One connection, so the statement this test looks for is on the connection it asks.
      handle = openDatabase(url, { schema, poolSize: 1 });
      cleanup = async () => {
        await handle.close();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`drop schema ${schema} cascade`);
        await c.end();
      };
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'gw-prepared-'));
      handle = openDatabase(`sqlite:${join(dir, 'p.sqlite')}`);
      cleanup = async () => {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      };
    }
    await sql`create table items (org text not null, name text not null, kind text not null)`.execute(handle.db);
    await sql`insert into items values ('a', 'one', 'tire'), ('a', 'two', 'rim'), ('b', 'one', 'tire')`.execute(handle.db);
  });
  afterAll(() => cleanup());

  const byOrgAndName = new PreparedQuery((db, v: { org: string; name: string }) =>
    db
      .withTables<{ items: { org: string; name: string; kind: string } }>()
      .selectFrom('items')
      .select(['org', 'name', 'kind'])
      // A constant in the query stays what it was built with; only the named values are bound per call.
      .where('kind', '!=', 'wheel')
      .where('name', '=', v.name)
      .where('org', '=', v.org),
  );

  it('binds each call its own values, in whatever order the query names them, inside transactions too', async () => {
    expect(await byOrgAndName.execute(handle.db, { org: 'a', name: 'one' })).toEqual([{ org: 'a', name: 'one', kind: 'tire' }]);
    expect(await byOrgAndName.execute(handle.db, { org: 'b', name: 'one' })).toEqual([{ org: 'b', name: 'one', kind: 'tire' }]);
    expect(await byOrgAndName.takeFirst(handle.db, { org: 'b', name: 'two' })).toBeUndefined();
    const inTx = await handle.db.transaction().execute((tx) => byOrgAndName.takeFirst(tx, { org: 'a', name: 'two' }));
    expect(inTx).toEqual({ org: 'a', name: 'two', kind: 'rim' });
  });

  type Item = { org: string; name: string; kind: string };
  const items = (db: Parameters<typeof byOrgAndName.execute>[0]) => db.withTables<{ items: Item }>();
  const insertRows = new PreparedList((db, _v: object, rows: Item[]) => items(db).insertInto('items').values(rows), 3);
  const namesOf = new PreparedList((db, v: { org: string }, names: string[]) =>
    items(db).selectFrom('items').select(['org', 'name', 'kind']).where('org', '=', v.org).where('name', 'in', names).orderBy('name'),
  );

  it('a list binds each item (or each column of each row) by its place, whatever the length, up to and past its bound', async () => {
    const rows = (org: string, n: number) => Array.from({ length: n }, (_, i) => ({ org, name: `n${i}`, kind: i % 2 === 0 ? 'tire' : 'rim' }));
    // Lengths 1 to 3 are compiled once each; 5 is past the bound and built per call. Twice each: the second call reuses.
    for (const n of [1, 2, 3, 5]) {
      for (const org of [`list-${n}-a`, `list-${n}-b`]) {
        await handle.db.transaction().execute((tx) => insertRows.result(tx, {}, rows(org, n)));
        const names = [...rows(org, n).map((r) => r.name), 'no-such'];
        expect(await namesOf.execute(handle.db, { org }, names.slice(0, 3))).toEqual(rows(org, n).slice(0, 3).sort((a, b) => a.name.localeCompare(b.name)));
        expect(await namesOf.execute(handle.db, { org }, names)).toEqual(rows(org, n).sort((a, b) => a.name.localeCompare(b.name)));
      }
    }
    // A row without a value for a column the statement names is refused, never bound as null.
    await expect(async () => insertRows.result(handle.db, {}, [{ org: 'x', name: 'y', kind: undefined as unknown as string }])).rejects.toThrow(/no value/);
  });

  const unorderedNames = new PreparedList(
    (db, v: { org: string }, names: string[]) => items(db).selectFrom('items').select(['name', 'kind']).where('org', '=', v.org).where('name', 'in', names),
    3,
  );
  const retype = new PreparedList((db, v: { org: string; kind: string }, names: string[]) => items(db).updateTable('items').set({ kind: v.kind }).where('org', '=', v.org).where('name', 'in', names), 3);

  it('a list past its bound runs in compiled pieces: the rows of every piece, each write landing once', async () => {
    const org = 'pieces';
    const all = Array.from({ length: 8 }, (_, i) => ({ org, name: `p${i}`, kind: 'tire' }));
    await handle.db.transaction().execute(async (tx) => {
      for (let at = 0; at < all.length; at += 3) await insertRows.result(tx, {}, all.slice(at, at + 3));
    });
    const sorted = <T extends { name: string }>(rows: T[]) => [...rows].sort((a, b) => a.name.localeCompare(b.name));
    // 2 (one statement), 3 (its bound), 7 and 9 (pieces of 3, 3, 1 and 3, 3, 3), names not there among them.
    for (const n of [2, 3, 7, 9]) {
      const names = [...all.map((r) => r.name), 'absent'].slice(0, n);
      const want = all.filter((r) => names.includes(r.name)).map(({ name, kind }) => ({ name, kind }));
      expect(sorted(await unorderedNames.executeInPieces(handle.db, { org }, names))).toEqual(sorted(want));
    }
    await handle.db.transaction().execute((tx) => retype.executeInPieces(tx, { org, kind: 'rim' }, all.slice(0, 7).map((r) => r.name)));
    const kinds = sorted(await unorderedNames.executeInPieces(handle.db, { org }, all.map((r) => r.name))).map((r) => r.kind);
    expect(kinds).toEqual(['rim', 'rim', 'rim', 'rim', 'rim', 'rim', 'rim', 'tire']);
  });

  it('in a transaction bound to its handle (as the invoker binds it), runs in it while open and is refused once it has ended', async () => {
    let ended: Tx | undefined;
    await handle.db.transaction().execute(async (tx) => {
      bindTransaction(tx);
      ended = tx;
      await insertRows.result(tx, {}, [{ org: 'bound', name: 'kept', kind: 'tire' }]);
      expect(await namesOf.execute(tx, { org: 'bound' }, ['kept'])).toEqual([{ org: 'bound', name: 'kept', kind: 'tire' }]);
    });
    await expect(
      handle.db.transaction().execute(async (tx) => {
        bindTransaction(tx);
        await insertRows.result(tx, {}, [{ org: 'bound', name: 'undone', kind: 'tire' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // A statement on a transaction that has ended never lands in the next one, which may hold its handle now.
    await handle.db.transaction().execute(async (tx) => {
      bindTransaction(tx);
      if (ended === undefined) throw new Error('no transaction seen');
      await expect(async () => insertRows.result(ended as Tx, {}, [{ org: 'bound', name: 'late', kind: 'tire' }])).rejects.toThrow(/already committed/);
    });
    expect(await namesOf.execute(handle.db, { org: 'bound' }, ['kept', 'undone', 'late'])).toEqual([{ org: 'bound', name: 'kept', kind: 'tire' }]);
  });

  it.runIf(dialect === 'postgres')('is a named statement on PostgreSQL, parsed once per connection', async () => {
    await byOrgAndName.execute(handle.db, { org: 'a', name: 'one' });
    const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(handle.db);
    const mine = rows.filter((r) => r.statement.includes('"items"') && r.statement.includes('where "kind"'));
    expect(mine).toHaveLength(1);
    expect(mine[0]?.name).toMatch(/^gw_prepared_\d+$/);
  });
});
