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
  /** Awaited before every call (the pollers' shared rate gate); connect-time calls go without one. */
  beforeCall?: () => Promise<void>;
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
