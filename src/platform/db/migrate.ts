import { type MigrationResultSet, Migrator, PostgresAdapter, sql } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Db } from './schema.js';

/**
 * On PostgreSQL the migration bookkeeping lives in the session's current schema: Kysely otherwise
 * takes a `kysely_migration_lock` in any schema of the database (another tenant's, a test's) for ours.
 */
async function currentSchema(db: Db): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return result.rows[0]?.schema;
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  const schema = await currentSchema(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    throw result.error instanceof Error ? result.error : new Error('migration failed', { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
