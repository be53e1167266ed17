import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.js';
import { WAL_BACKSTOP_PAGES } from '../../../src/platform/db/sqlite-checkpoints.js';
import { waitFor } from '../../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-checkpoints-'));
const sizeOf = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

describe('SQLite WAL checkpoints in a thread of their own', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a WAL past 1,000 pages is copied into the database file by the thread, below the writer\'s own threshold', async () => {
    const file = join(dir, 'big.sqlite');
    const handle = openDatabase(`sqlite:${file}`);
    try {
      await sql`create table t (x text)`.execute(handle.db);
      // About 8 MB in 40 commits: twice what SQLite checkpoints at by itself, half the writer's backstop.
      const row = 'x'.repeat(200 * 1024);
      for (let i = 0; i < 40; i++) await sql`insert into t values (${row})`.execute(handle.db);
      expect(sizeOf(`${file}-wal`)).toBeGreaterThan(1000 * 4096);
      expect(sizeOf(`${file}-wal`)).toBeLessThan(WAL_BACKSTOP_PAGES * 4096);
      // Each commit asks at most every 250 ms; the thread's PASSIVE checkpoint fills the database file meanwhile.
      await waitFor(
        async () => {
          await sql`insert into t values ('tick')`.execute(handle.db);
          return (handle.walCheckpoints?.checkpoints ?? 0) >= 1;
        },
        { what: 'a checkpoint by the thread', intervalMs: 100 },
      );
      // The pages are in the database file: only the thread checkpoints below the writer's backstop (16 MB of WAL).
      expect(sizeOf(file)).toBeGreaterThan(8 * 1000 * 1000);
      expect(Number((await sql<{ n: number }>`select count(*) as n from t`.execute(handle.db)).rows[0]?.n)).toBeGreaterThanOrEqual(41);
    } finally {
      await handle.close();
    }
    // Closed in order (the thread's connection first): the writer, last, checkpointed the rest and removed the WAL.
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('a database that writes little starts no thread, and closes as before', async () => {
    const file = join(dir, 'small.sqlite');
    const handle = openDatabase(`sqlite:${file}`);
    await sql`create table t (x integer)`.execute(handle.db);
    for (let i = 0; i < 5; i++) await sql`insert into t values (${i})`.execute(handle.db);
    expect(handle.walCheckpoints?.checkpoints).toBe(0);
    await handle.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});
