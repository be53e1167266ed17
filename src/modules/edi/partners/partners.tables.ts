// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.

/** An org's own EDI interchange id and its control-number counter (ISA13 and GS06 of everything it sends). */
export interface EdiProfilesTable {
  org_id: string;
  isa_qualifier: string;
  isa_id: string;
  last_control_number: number;
  created_at: string;
  updated_at: string;
}

/** A further interchange id (ISA07/ISA08) partners may address the org under; edi_profiles holds the main one. */
interface EdiInterchangeIdsTable {
  org_id: string;
  isa_qualifier: string;
  isa_id: string;
  created_at: string;
}

export interface EdiPartnersTable {
  id: string;
  org_id: string;
  name: string;
  isa_qualifier: string;
  isa_id: string;
  gs_id: string | null;
  outbound_url: string | null;
  /** Comma-separated PO1 product id qualifiers, in the order they are tried for the SKU. */
  sku_qualifiers: string;
  /** JSON (DocumentProfile): parties, vendor number, default SCAC, terms, the segments each 855/856/810 must carry, inbound validation. */
  document_profile: string;
  created_at: string;
}

declare module '../../../platform/db/schema.js' {
  interface Database {
    edi_profiles: EdiProfilesTable;
    edi_partners: EdiPartnersTable;
    edi_interchange_ids: EdiInterchangeIdsTable;
  }
}
