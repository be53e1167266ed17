import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../src/platform/db/database.js';

/**
 * Makes a table `t` and writes 2,000-byte rows into it, 20 transactions at a time with a read beside each round, for over
 * 1.5 s: several checkpoint periods with a read open in most turns. Returns the bytes written, for a bound on the WAL.
 */
export async function writeBackToBack(handle: DatabaseHandle): Promise<number> {
  const db = handle.db.withTables<{ t: { n: number; pad: string } }>();
  await sql`create table t (n integer primary key, pad text not null)`.execute(db);
  const pad = 'x'.repeat(2000);
  let written = 0;
  const started = performance.now();
  for (let n = 0; performance.now() - started < 1500 || n < 2000; n += 20) {
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => db.transaction().execute((tx) => tx.insertInto('t').values({ n: n + i, pad }).execute())),
      db.selectFrom('t').select('n').where('n', '=', n).execute(),
    ]);
    written += 20 * pad.length;
  }
  return written;
}
