// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.

export interface ObjectDefinitionsTable {
  id: string;
  org_id: string;
  key: string;
  label: string;
  read_scope: string;
  write_scope: string | null;
  key_field: string | null;
  /** JSON: the definition's fields as the operator wrote them. */
  fields: string;
  /** JSON: filterable field name -> object_rows slot column. */
  slots: string;
  version: number;
  last_row_id: number;
  created_at: string;
  updated_at: string;
  /** A redefinition rewriting the rows in slices: ids up to rewrite_after are done, up to rewrite_through to do; null when none is. */
  rewrite_after: number | null;
  rewrite_through: number | null;
  /** JSON `{ key_field, slots }` of the definition before that redefinition. */
  rewrite_from: string | null;
}

/** A dynamic-object row: JSON data plus typed copies of its filterable fields in indexed slot columns. */
export interface ObjectRowsTable {
  object_id: string;
  id: number;
  org_id: string;
  key_value: string | null;
  /** The row id the write that last wrote this row reserved (its own id when inserted): newer writes have higher ones. */
  rev: number | null;
  data: string;
  created_at: string;
  updated_at: string;
  s1: string | null;
  s2: string | null;
  s3: string | null;
  s4: string | null;
  s5: string | null;
  s6: string | null;
  s7: string | null;
  s8: string | null;
  n1: number | null;
  n2: number | null;
  n3: number | null;
  n4: number | null;
  n5: number | null;
  n6: number | null;
  n7: number | null;
  n8: number | null;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    object_definitions: ObjectDefinitionsTable;
    object_rows: ObjectRowsTable;
  }
}
