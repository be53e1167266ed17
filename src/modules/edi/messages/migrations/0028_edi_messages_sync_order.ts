import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // edi_messages_list with updated_since (created_since has edi_messages_org_created_idx): changes in time order.
  await db.schema.createIndex('edi_messages_org_updated_idx').on('edi_messages').columns(['org_id', 'updated_at', 'id']).execute();
}
