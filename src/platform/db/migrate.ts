import { type Migration, type MigrationResultSet, Migrator, PostgresAdapter, sql } from 'kysely';
import { migrations as baseline } from './migrations/index.js';
import type { Db } from './schema.js';

/** Whatever brings migrations of its own: a module (see ModuleDefinition.migrations). */
interface MigrationSource {
  name: string;
  migrations?: Record<string, Migration>;
}

/**
 * Whose migration a name says it is: the module's name, or the folder it shares with sibling modules (`edi` for
 * `edi-partners` and `edi-messages`, whose migrations were named before the folder was split and cannot be renamed).
 */
function ownsMigration(moduleName: string, migrationName: string): boolean {
  if (!/^\d{4}_/.test(migrationName)) return false;
  const rest = migrationName.slice(5);
  const owners = new Set([moduleName.replaceAll('-', '_'), moduleName.split('-')[0] ?? moduleName]);
  return [...owners].some((owner) => rest === owner || rest.startsWith(`${owner}_`));
}

/** The platform's migrations and every module's, by name; Kysely runs them in name order. */
export function migrationsOf(modules: readonly MigrationSource[]): Record<string, Migration> {
  const all: Record<string, Migration> = { ...baseline };
  for (const m of modules) {
    for (const [name, migration] of Object.entries(m.migrations ?? {})) {
      if (!ownsMigration(m.name, name)) {
        throw new Error(`migration ${name} of module ${m.name} must be named NNNN_${m.name.replaceAll('-', '_')}[_<what>] (or its folder's name for the module part)`);
      }
      if (name in all) throw new Error(`migration ${name} is declared twice`);
      all[name] = migration;
    }
  }
  // In the order Kysely runs them: a platform migration (0009_secret_keys) sorts among the modules' ones.
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * On PostgreSQL the migration bookkeeping lives in the session's current schema: Kysely otherwise
 * takes a `kysely_migration_lock` in any schema of the database (another tenant's, a test's) for ours.
 */
async function currentSchema(db: Db): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return result.rows[0]?.schema;
}

export interface MigrateOptions {
  /** Each migration commits on its own and is reported (done, total), so a run stopped there resumes. */
  onMigrated?: (done: number, total: number) => void;
  /** Stop short of this migration (a test of it builds the schema as it was before it). */
  before?: string;
}

/** Runs the platform's and the modules' migrations that this database has not run yet; returns their names. */
export async function migrateToLatest(db: Db, modules: readonly MigrationSource[], opts: MigrateOptions = {}): Promise<string[]> {
  const { onMigrated, before } = opts;
  const schema = await currentSchema(db);
  const migrations = Object.fromEntries(Object.entries(migrationsOf(modules)).filter(([name]) => before === undefined || name < before));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
  if (onMigrated === undefined) return succeeded(await migrator.migrateToLatest());
  const total = (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).length;
  const applied: string[] = [];
  for (;;) {
    const step = succeeded(await migrator.migrateUp());
    if (step.length === 0) return applied;
    applied.push(...step);
    onMigrated(applied.length, total);
  }
}

function succeeded(result: MigrationResultSet): string[] {
  if (result.error) {
    throw result.error instanceof Error ? result.error : new Error('migration failed', { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
