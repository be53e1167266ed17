import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('secret_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wrapped_key', 'text', (c) => c.notNull())
    .addColumn('kek_id', 'text', (c) => c.notNull())
    // 1 on the current key, null on the others: the unique constraint lets exactly one key be current (NULLs never clash).
    .addColumn('is_current', 'integer', (c) => c.unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
}
