import type { Provider } from './catalog.js';

/** Where and as whom the gateway reaches one provider: operator configuration (PROVIDERS_CONFIG, env, VENDOR_SIM_URL). */
export interface ProviderEndpoint {
  /** The provider's API root, e.g. `https://api.vendor.example/aemp` or `http://127.0.0.1:8091/vendor1_livelink`. */
  baseUrl: string;
  /** The gateway's OAuth client at the vendor (password grant, authorization code). */
  clientId?: string;
  clientSecret?: string;
  /** Per-call timeout. */
  timeoutMs: number;
  /** The vendor's request budget for the whole gateway (PROVIDERS_CONFIG, else VENDOR_RATE_LIMIT_PER_MINUTE). */
  requestsPerMinute?: number;
  /** One call per URL per this many seconds (a vendor's per-URL budget), counted per connection; absent: no such budget. */
  urlIntervalSeconds?: number;
  /** The OAuth token endpoint, absolute (default `{baseUrl}/oauth/token`). */
  tokenUrl?: string;
  /** The OAuth authorize page, absolute (default `{baseUrl}/oauth/authorize`). */
  authorizeUrl?: string;
  /** Sent with every token request (and the authorize link) when the vendor asks for them. */
  scope?: string;
  audience?: string;
  tokenParams?: Readonly<Record<string, string>>;
  /** ISO 15143-3 paths: the fleet snapshot and the time series, with `{fleet_id}`, `{page}`, `{pin}`, `{element}`, `{start}`, `{end}`. */
  fleetPath?: string;
  seriesPath?: string;
  /** Where the time series is served when not at baseUrl (another host). */
  seriesBaseUrl?: string;
  /** The number of a feed's first page: 0 or 1 (default 1). */
  firstPage?: 0 | 1;
  /** The vendor's document format when it differs from the catalog's. */
  format?: 'xml' | 'json';
  /** A new connection's poll interval, and the least the operator may set (default: the catalog's minPollSeconds). */
  pollIntervalSeconds?: number;
  minPollSeconds?: number;
  /** Awaited before every call with its absolute URL (the pollers' shared rate gate); connect-time calls go without one. */
  beforeCall?: (call: { method: 'GET' | 'POST'; url: string }) => Promise<void>;
}

/** The ISO 15143-3 paths and first page number when the operator configured none: the standard's. */
export const DEFAULT_FLEET_PATH = '/Fleet/{page}';
export const DEFAULT_SERIES_PATH = '/Fleet/Equipment/ID/{pin}/{element}/{start}/{end}/{page}';

/** A path template with its placeholders filled, each value encoded as one path segment. */
export function fillPath(template: string, values: Readonly<Record<string, string | number | undefined>>): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : encodeURIComponent(String(value));
  });
}

/** Whether a provider's configured paths take the fleet's id (captured at connect). */
export function needsFleetId(endpoint: ProviderEndpoint): boolean {
  return [endpoint.fleetPath, endpoint.seriesPath].some((path) => path?.includes('{fleet_id}') === true);
}

/** The credentials a fleet owner posts, already checked against the provider's CredentialKind. */
export type Credentials = Readonly<Record<string, string>>;

/** What the vendor told us about the account the credentials open (shown nowhere but logs at debug; may be empty). */
interface VerifiedAccount {
  /** The vendor's account or fleet name when it says one. */
  accountName?: string;
}

/** The vendor refused the credentials (wrong password, unknown key): a 4xx for the fleet owner, the token stays usable. */
export class VendorRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VendorRejectedError';
  }
}

/** The vendor could not be reached, failed (5xx, 429, unreadable answer) or timed out: 502/504, the token stays usable. */
export class VendorUnavailableError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'failed',
    /** The vendor's HTTP status when it answered with an error; undefined when it could not be reached or timed out. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'VendorUnavailableError';
  }
}

/** The vendor answered, but with a document the gateway cannot read: which URL path, and the parser's reason. */
export class VendorDocumentInvalidError extends VendorUnavailableError {
  constructor(
    providerId: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${providerId} sent a document that cannot be read at ${path}: ${reason}`, 'failed');
    this.name = 'VendorDocumentInvalidError';
  }
}

/** The vendor asked us to wait: a 429 or 503, or another 5xx with a Retry-After. Unavailable like any other failure. */
export class VendorAskedToWaitError extends VendorUnavailableError {
  constructor(
    message: string,
    /** Seconds its Retry-After asked for; undefined when it did not say. */
    readonly retryAfterSeconds: number | undefined,
    status: number,
  ) {
    super(message, 'failed', status);
    this.name = 'VendorAskedToWaitError';
  }
}

/**
 * The gateway's own count of a vendor's per-URL budget says this URL was fetched too recently: the poll is put off
 * until the budget admits it (it is not a failure of the vendor's, so the breaker does not count it). Not a
 * VendorAskedToWaitError: it holds back one connection, not every poll of the provider.
 */
export class VendorBudgetError extends VendorUnavailableError {
  constructor(
    providerId: string,
    path: string,
    intervalSeconds: number,
    /** Seconds until the budget admits the call. */
    readonly waitSeconds: number,
  ) {
    super(`${providerId} allows one call to ${path} per ${intervalSeconds} s: the next is due in ${waitSeconds} s`, 'failed');
    this.name = 'VendorBudgetError';
  }
}

/** How long a vendor's failure asked us to wait (its Retry-After, in seconds), if it did. */
export function retryAfterOf(err: unknown): number | undefined {
  return err instanceof VendorAskedToWaitError ? err.retryAfterSeconds : undefined;
}

/** OAuth tokens as stored (encrypted) for a connection. */
export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  /** ISO 8601 UTC; absent when the vendor did not say. */
  expires_at?: string;
  token_type: string;
  scope?: string;
}

/** Proves credentials work: one small authenticated call (an ISO feed's first fleet page, an aggregator's account). */
export interface CredentialAdapter {
  verify(provider: Provider, endpoint: ProviderEndpoint, credentials: Credentials): Promise<VerifiedAccount>;
}

/** The authorization-code flow (with PKCE S256) of the OEM providers. */
export interface OAuthConsentAdapter {
  /** The vendor's authorize page URL the fleet owner is sent to. */
  authorizeUrl(endpoint: ProviderEndpoint, request: { state: string; codeChallenge: string; redirectUri: string }): string;
  /** Exchanges the code the vendor redirected back with; VendorRejectedError for a refused code/verifier. */
  exchangeCode(endpoint: ProviderEndpoint, request: { code: string; codeVerifier: string; redirectUri: string }, now: Date): Promise<OAuthTokens>;
  /** A fresh access token from the refresh token; VendorRejectedError when the vendor refuses it (reauth_required). */
  refresh(endpoint: ProviderEndpoint, refreshToken: string, now: Date): Promise<OAuthTokens>;
}
