// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.
import type { AuthContext } from '../../platform/auth/scopes.js';
import type { ClaimStatus } from './claim-states.js';

interface WarrantyClaimCountersTable {
  org_id: string;
  last_number: number;
}

export interface WarrantyClaimsTable {
  id: string;
  org_id: string;
  /** The per-org sequence behind claim_number (`WC-000042` has 42). */
  number: number;
  claim_number: string;
  status: ClaimStatus;
  description: string;
  sku: string | null;
  dot_number: string | null;
  quantity: number | null;
  customer_ref: string | null;
  /** The dealer of the portal key that filed it; null for claims filed with an API key. */
  dealer: string | null;
  contact_email: string | null;
  resolution: string | null;
  source: AuthContext['source'];
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface WarrantyClaimHistoryTable {
  claim_id: string;
  seq: number;
  org_id: string;
  from_status: ClaimStatus | null;
  to_status: ClaimStatus;
  at: string;
  key_id: string;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    warranty_claim_counters: WarrantyClaimCountersTable;
    warranty_claims: WarrantyClaimsTable;
    warranty_claim_history: WarrantyClaimHistoryTable;
  }
}
