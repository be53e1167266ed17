import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StartupError } from '../config-errors.js';

const DEFAULT_SQLITE_FILE = resolve('data/gateway.sqlite');

/**
 * Refuses a SQLite DATABASE_URL whose folder does not exist, so a typo in the path does not quietly create folders, an
 * empty database and a new gateway.secret. The default path, and `migrate` or `serve --create`, may create it.
 */
export function checkDatabaseFolder(databaseUrl: string, mayCreate: boolean): void {
  if (!databaseUrl.startsWith('sqlite:') || mayCreate) return;
  const file = databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:' || resolve(file) === DEFAULT_SQLITE_FILE) return;
  const folder = dirname(resolve(file));
  if (existsSync(folder)) return;
  throw new StartupError(
    `the folder of DATABASE_URL does not exist: ${folder}; check the path, or create a new database there with \`gateway migrate\` (or \`serve --create\`)`,
  );
}
