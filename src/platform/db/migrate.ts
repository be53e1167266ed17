import { type MigrationResultSet, Migrator } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Db } from './schema.js';

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    throw result.error instanceof Error ? result.error : new Error('migration failed', { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
