/**
 * Where a fleet's vendor endpoints are and what the vendor asks of callers, the ways real feeds differ from the
 * simulator's defaults. Paths are under the provider's prefix (`/<provider id>`); the account is the one
 * `sim.setFleet` names (user name, API key or OAuth client id).
 */
export interface FleetEndpoints {
  /** The OAuth token endpoint's path instead of `/oauth/token` (which then answers 404 for this account). */
  tokenPath?: string;
  /** The OAuth authorize page's path instead of `/oauth/authorize` (keyed by the `client_id` it is opened with). */
  authorizePath?: string;
  /** Token requests (and the authorize page) without this scope among theirs are refused: `invalid_scope`. */
  requireScope?: string;
  /** Token requests without this audience are refused: `invalid_request`. */
  requireAudience?: string;
  /** The fleet is read at `/{fleetId}/Fleet/{page}`; `/Fleet/{page}` and any other id answer 404. */
  fleetId?: string;
  /** The time series at `/Fleet/Equipment/{pin}/...` (no `ID/`); the `ID/` form answers 404. */
  seriesWithoutId?: boolean;
  /** The time series only under the simulator's other host (`/other-host/<provider id>/...`); here it answers 404. */
  seriesOnOtherHost?: boolean;
  /** Pages numbered from 0 (`/Fleet/0` is the first, links say so) instead of 1. */
  firstPage?: 0 | 1;
  /** One call per URL per this many seconds of the simulator's clock; another inside it is a 429 with Retry-After. */
  urlIntervalSeconds?: number;
  /** Fleet pages (by the number asked for) that answer 404, as a feed whose page vanished between two reads. */
  missingPages?: readonly number[];
}

/** The second route prefix standing for another host of the same vendor (where some feeds serve the time series). */
export const OTHER_HOST = 'other-host';
