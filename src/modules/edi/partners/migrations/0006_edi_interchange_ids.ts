import type { Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Interchange ids an org is also addressed under (ISA07/ISA08), beside the one in edi_profiles that our documents come from.
  await db.schema
    .createTable('edi_interchange_ids')
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id'))
    .addColumn('isa_qualifier', 'text', (c) => c.notNull())
    .addColumn('isa_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('edi_interchange_ids_pk', ['org_id', 'isa_qualifier', 'isa_id'])
    .execute();
}
