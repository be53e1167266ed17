import { type Kysely, sql } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A received body stored in pieces is `arriving` until its last piece; a resend of the same bytes looks for one a
  // stopped process left. Partial: only such rows (rare, short-lived) are indexed, not every message's hash.
  await db.schema
    .createIndex('edi_messages_arriving_idx')
    .on('edi_messages')
    .columns(['org_id', 'sha256'])
    .where(sql.ref('status'), '=', sql.lit('arriving'))
    .execute();
}
