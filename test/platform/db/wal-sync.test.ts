import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.js';
import { isTransientDatabaseError } from '../../../src/platform/db/faults.js';
import { writeBackToBack } from './wal-support.js';

type SyncCall = (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void;

/** A WAL sync that waits until the test lets it finish (or fail), counting the calls. */
function heldSync() {
  const pending: ((err: NodeJS.ErrnoException | null) => void)[] = [];
  const call: SyncCall = (_fd, done) => void pending.push(done);
  return {
    call,
    get waiting() {
      return pending.length;
    },
    finish: (err: NodeJS.ErrnoException | null = null) => pending.splice(0).forEach((done) => done(err)),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SQLite at synchronous FULL: the WAL synced after COMMIT, off the event loop', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-walsync-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A database whose WAL syncs wait for the test, with a table `t` made (its own sync let through). */
  const openHeld = async (name: string) => {
    const sync = heldSync();
    const handle = openDatabase(`sqlite:${join(dir, name)}`, { syncWal: sync.call });
    const db = handle.db.withTables<{ t: { n: number } }>();
    const created = sql`create table t (n integer primary key)`.execute(db);
    while (sync.waiting === 0) await tick();
    sync.finish();
    await created;
    return { sync, handle, db };
  };

  it('answers a transaction only once its sync is done, and no read sees the commit before then', async () => {
    const { sync, handle, db } = await openHeld('a.sqlite');
    const count = async () => Number((await db.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c);

    let answered = false;
    const insert = db.transaction().execute((tx) => tx.insertInto('t').values({ n: 1 }).execute()).then(() => (answered = true));
    while (sync.waiting === 0) await tick();
    // Committed, not yet on disk: not answered, and reads over several turns still show the state before it.
    for (let i = 0; i < 5; i++) {
      expect(await count()).toBe(0);
      await tick();
    }
    expect(answered).toBe(false);
    // A transaction that arrives meanwhile may run, but commits only once the sync is done: one commit at most is not yet durable.
    const second = db.transaction().execute((tx) => tx.insertInto('t').values({ n: 2 }).execute());
    await tick();
    expect(sync.waiting).toBe(1);
    sync.finish();
    await insert;
    expect(answered).toBe(true);
    // Answered: the next read sees it (the second's commit, not yet synced, is not seen).
    while (sync.waiting === 0) await tick();
    expect(await count()).toBe(1);
    sync.finish();
    await second;
    expect(await count()).toBe(2);
    await handle.close();
  });

  it('a failed sync fails its transactions and refuses every later write; reads still answer', async () => {
    const { sync, handle, db } = await openHeld('b.sqlite');
    const first = db.transaction().execute((tx) => tx.insertInto('t').values({ n: 1 }).execute());
    while (sync.waiting === 0) await tick();
    const queued = db.transaction().execute((tx) => tx.insertInto('t').values({ n: 2 }).execute());
    sync.finish(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5, syscall: 'fdatasync' }));
    for (const failed of [first, queued]) {
      const err = await failed.then(() => undefined, (e: unknown) => e as Error & { code?: string });
      expect(err?.code).toBe('SQLITE_IOERR_FSYNC');
      expect(err?.message).toMatch(/could not be synced to disk/);
      // Not a fault that passes by itself: retrying would not make the earlier commit durable.
      expect(isTransientDatabaseError(err)).toBe(false);
    }
    await expect(db.insertInto('t').values({ n: 3 }).execute()).rejects.toMatchObject({ code: 'SQLITE_IOERR_FSYNC' });
    // Reads still answer, from what SQLite holds: the first commit (not known durable; its caller was told so), not the queued one.
    expect(Number((await db.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c)).toBe(1);
    await handle.close();
  });

  it('keeps the WAL from growing without end under back-to-back writes with reads between them', async () => {
    const file = join(dir, 'c.sqlite');
    const handle = openDatabase(`sqlite:${file}`);
    const written = await writeBackToBack(handle);
    // The WAL started over at least once: it holds far less than everything written.
    expect(statSync(`${file}-wal`).size).toBeLessThan(written / 2);
    await handle.close();
  });
});
