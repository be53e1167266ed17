import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-files-'));
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe.skipIf(process.platform === 'win32')('SQLite files (unix permissions)', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the database, its -wal and its -shm readable by the owner only (0600), whatever the umask allows', async () => {
    const file = join(dir, 'nested', 'gateway.sqlite');
    const previous = process.umask(0o022); // the usual umask, which would leave them 0644
    try {
      const handle = openDatabase(`sqlite:${file}`);
      await sql`create table t (x integer)`.execute(handle.db);
      await sql`insert into t values (1)`.execute(handle.db);
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect([file, `${file}-wal`, `${file}-shm`].map(modeOf)).toEqual(['600', '600', '600']);
      await handle.close();
    } finally {
      process.umask(previous);
    }
  });

  it("leaves an existing database's mode as its operator set it", async () => {
    const file = join(dir, 'shared.sqlite');
    writeFileSync(file, '');
    chmodSync(file, 0o640);
    const handle = openDatabase(`sqlite:${file}`);
    await sql`create table t (x integer)`.execute(handle.db);
    expect(modeOf(file)).toBe('640');
    await handle.close();
  });
});
