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

  it('tightens an existing database, -wal and -shm open to group or others to 0600, and says so once', async () => {
    const file = join(dir, 'loose.sqlite');
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      writeFileSync(path, '');
      chmodSync(path, 0o644);
    }
    const warnings: { fields: unknown; message: string }[] = [];
    const log = { warn: (fields: unknown, message?: string) => void warnings.push({ fields, message: message ?? '' }) };
    const handle = openDatabase(`sqlite:${file}`, { log });
    await sql`create table t (x integer)`.execute(handle.db);
    expect([file, `${file}-wal`, `${file}-shm`].map(modeOf)).toEqual(['600', '600', '600']);
    await handle.close();
    expect(warnings).toEqual([
      {
        fields: { files: [`${file}`, `${file}-wal`, `${file}-shm`].map((path) => ({ file: path, was: '0644' })) },
        message: expect.stringContaining('tightened the SQLite database files to 0600') as string,
      },
    ]);
    // Already private: opened again, nothing to change and nothing said.
    const again = openDatabase(`sqlite:${file}`, { log });
    await again.close();
    expect(warnings).toHaveLength(1);
  });
});
