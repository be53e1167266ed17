import type { FleetEndpoints } from './fleet-endpoints.js';
import type { IsoDialect } from './iso-dialect.js';
import type { ReadingQuirks } from './reading-quirks.js';

/**
 * How one fleet (one account at one provider) behaves beyond its provider's mode, the way real vendors' feeds differ:
 * switched per test with `sim.setFleet(provider, account, behaviour)` or `POST /_sim/fleet`. Each concern lives in its
 * own file; an absent one behaves as the simulator always has.
 */
export interface FleetBehaviour {
  /** How ISO 15143-3 documents are written (XML or JSON shapes, names, paging from 0, time formats). */
  dialect?: IsoDialect;
  /** Where the vendor's endpoints are and what it asks of callers (token URL, scope, paths, per-URL budgets). */
  endpoints?: FleetEndpoints;
  /** Readings that real fleets send: late, far in the future, machines added with old history, placeholders. */
  readings?: ReadingQuirks;
}

/** The account a request speaks for: its API key, its Basic user name, or the account its bearer token was issued to. */
export type AccountOf = (request: { headers: Record<string, string | string[] | undefined> }) => string | null;
