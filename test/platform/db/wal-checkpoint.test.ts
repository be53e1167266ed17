import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.js';
import { WalCheckpointThread } from '../../../src/platform/db/sqlite-wal-checkpoint.js';
import { requireBuild } from '../outbox/process-support.js';
import { writeBackToBack } from './wal-support.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SQLite at synchronous FULL: the WAL checkpointed off the event loop', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-walcheckpoint-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the checkpoint thread copies the WAL back into the database file on its own connection', async () => {
    const file = join(dir, 'thread.sqlite');
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table t (n integer primary key, pad text not null)');
    const insert = writer.prepare('insert into t values (?, ?)');
    writer.transaction(() => {
      for (let n = 0; n < 500; n++) insert.run(n, 'x'.repeat(1000));
    })();
    // Everything written is still in the WAL: the database file holds no more than its first pages.
    const before = statSync(file).size;
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(500 * 1000);
    const thread = new WalCheckpointThread(file);
    await thread.run();
    expect(statSync(file).size).toBeGreaterThan(before + 400 * 1000);
    await thread.close();
    // The thread's connection is gone: the last connection closing removes the WAL, as SQLite does.
    writer.close();
    expect(() => statSync(`${file}-wal`)).toThrow();
  });

  it('a checkpoint that cannot run rejects, and the next one starts a new thread', async () => {
    const file = join(dir, 'missing.sqlite');
    const thread = new WalCheckpointThread(file);
    // No such file: the thread fails to open it and exits.
    await expect(thread.run()).rejects.toThrow(/WAL checkpoint/);
    const writer = new SQLite(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('create table t (n integer primary key)');
    await expect(thread.run()).resolves.toBeUndefined();
    await thread.close();
    writer.close();
  });

  it('a process that closes its database after a checkpoint ran in the thread ends normally (the CLI\'s commands do)', () => {
    requireBuild();
    const database = new URL('../../../dist/src/platform/db/database.js', import.meta.url).href;
    // Writes for 400 ms: a checkpoint falls due (every 250 ms) and runs in the thread, which is then idle when close() ends it.
    const script = `
      import { openDatabase } from ${JSON.stringify(database)};
      const handle = openDatabase(${JSON.stringify(`sqlite:${join(dir, 'process.sqlite')}`)});
      const db = handle.db;
      await db.schema.createTable('t').addColumn('n', 'integer', (c) => c.primaryKey()).execute();
      let n = 0;
      for (const until = Date.now() + 400; Date.now() < until; n++) {
        await db.insertInto('t').values({ n }).execute();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await handle.close();
      process.stdout.write('closed');
    `;
    // A module file, as bin/gateway runs: there an unsettled top-level await (the thread's exit awaited while nothing
    // referenced it) ends node with code 13. (`-e` keeps its own evaluation alive and would not show it.)
    const file = join(dir, 'close.mjs');
    writeFileSync(file, script);
    expect(execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 })).toBe('closed');
  });

  it('writes wait for a checkpoint in flight, reads answer meanwhile, and the writes go on once it is over', async () => {
    const held: (() => void)[] = [];
    const handle = openDatabase(`sqlite:${join(dir, 'held.sqlite')}`, { checkpointWal: () => new Promise<void>((resolve) => held.push(resolve)) });
    const db = handle.db.withTables<{ t: { n: number } }>();
    await sql`create table t (n integer primary key)`.execute(db);
    // A checkpoint is due 250 ms after the last: write until one is asked for.
    let n = 0;
    while (held.length === 0) {
      await db.insertInto('t').values({ n: n++ }).execute();
      if (held.length === 0) await sleep(20);
    }
    let answered = false;
    const write = db.insertInto('t').values({ n: n++ }).execute().then(() => (answered = true));
    for (let i = 0; i < 5; i++) {
      expect(Number((await db.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('c')).executeTakeFirstOrThrow()).c)).toBe(n - 1);
      await tick();
    }
    expect(answered).toBe(false);
    held.splice(0).forEach((finish) => finish());
    await write;
    expect(answered).toBe(true);
    await handle.close();
  });

  it('a checkpoint that fails off the event loop runs on the write connection: the WAL still starts over', async () => {
    const file = join(dir, 'failing.sqlite');
    let asked = 0;
    const handle = openDatabase(`sqlite:${file}`, {
      checkpointWal: () => {
        asked++;
        return Promise.reject(new Error('no thread'));
      },
    });
    const written = await writeBackToBack(handle);
    expect(asked).toBeGreaterThan(1);
    expect(statSync(`${file}-wal`).size).toBeLessThan(written / 2);
    await handle.close();
  });
});
