import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Every order so far was priced in US dollars: no org could set another default before this column existed.
  await db.schema
    .alterTable('orders')
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .execute();
}
