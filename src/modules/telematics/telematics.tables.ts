// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.

/** A single-use connect token the hub hands a fleet owner; only its SHA-256 hash is kept. */
export interface TelematicsConnectTokensTable {
  /** SHA-256 hex of the token: the key it is looked up by. */
  token_hash: string;
  org_id: string;
  /** Set when the hub fixed the provider at issue time: a POST /connect for another is refused. */
  provider: string | null;
  label: string | null;
  created_at: string;
  expires_at: string;
  /** When a POST /connect consumed it; null while usable. */
  used_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    telematics_connect_tokens: TelematicsConnectTokensTable;
  }
}
