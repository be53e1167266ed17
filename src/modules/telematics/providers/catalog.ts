/**
 * The telematics providers a fleet can connect (spec section 4, brand names replaced by vendorN), by group: how each
 * is reached decides its credentials and its adapter. Adding a provider is an entry here (plus, at most, an adapter).
 */
export type ProviderGroup = 'iso15143' | 'oem_oauth' | 'aggregator' | 'tpms' | 'stub';

/**
 * How the gateway authenticates to the vendor with what the fleet gave it:
 * - `basic`: HTTP Basic with the fleet's username and password on every call;
 * - `oauth_password`: OAuth2 password grant (operator's client id/secret + the fleet's username/password) for a bearer token;
 * - `oauth_client_credentials`: OAuth2 client-credentials grant, the fleet's username/password being its client id/secret;
 * - `oauth_authorization_code`: the fleet consents in the vendor's browser UI (authorization code + PKCE);
 * - `api_key`: the fleet's API key in a header on every call;
 * - `session_login`: a login call with username/password answers a session token used as a bearer;
 * - `none`: not connectable here (stubs).
 */
type AuthStyle = 'basic' | 'oauth_password' | 'oauth_client_credentials' | 'oauth_authorization_code' | 'api_key' | 'session_login' | 'none';

/** What the fleet owner posts as `credentials` for the provider. */
export type CredentialKind = 'username_password' | 'api_key' | 'none';

type DataFormat = 'xml' | 'json';

export interface Provider {
  id: string;
  group: ProviderGroup;
  auth: AuthStyle;
  credentials: CredentialKind;
  format: DataFormat;
  /** The vendor's minimum time between polls of one account (the poller's default interval), at least 60 s. */
  minPollSeconds: number;
}

type Entry = Omit<Provider, 'group'>;

const entries = (group: ProviderGroup, list: Entry[]): Provider[] => list.map((e) => ({ ...e, group }));
const iso = (id: string, auth: AuthStyle, format: DataFormat, minPollSeconds = 300): Entry => ({ id, auth, credentials: 'username_password', format, minPollSeconds });

export const PROVIDERS: readonly Provider[] = [
  // ISO 15143-3 (AEMP 2.0) feeds: one standard, three ways real feeds authenticate, XML or JSON.
  ...entries('iso15143', [
    iso('vendor1_livelink', 'basic', 'xml'),
    iso('vendor2_machineiq', 'oauth_password', 'json'),
    iso('vendor3_himate', 'basic', 'xml', 600),
    iso('vendor4_caretrack', 'oauth_client_credentials', 'xml'),
    iso('vendor5_visionlink', 'oauth_client_credentials', 'json'),
    iso('vendor6_lida', 'basic', 'json'),
    iso('vendor7_consite', 'basic', 'xml', 900),
    iso('vendor8_connect', 'oauth_password', 'xml'),
    iso('vendor9_sitewatch', 'basic', 'json'),
    iso('vendor10_fleetforce', 'oauth_password', 'json'),
  ]),
  ...entries('oem_oauth', [
    { id: 'vendor11_operations_center', auth: 'oauth_authorization_code', credentials: 'none', format: 'json', minPollSeconds: 300 },
    { id: 'vendor12_fieldops', auth: 'oauth_authorization_code', credentials: 'none', format: 'json', minPollSeconds: 300 },
  ]),
  ...entries('aggregator', [
    { id: 'vendor13', auth: 'api_key', credentials: 'api_key', format: 'json', minPollSeconds: 60 },
    { id: 'vendor14', auth: 'api_key', credentials: 'api_key', format: 'json', minPollSeconds: 120 },
    { id: 'vendor15', auth: 'basic', credentials: 'username_password', format: 'json', minPollSeconds: 60 },
    { id: 'vendor16', auth: 'session_login', credentials: 'username_password', format: 'json', minPollSeconds: 300 },
    { id: 'vendor17', auth: 'api_key', credentials: 'api_key', format: 'json', minPollSeconds: 60 },
  ]),
  ...entries('tpms', [
    { id: 'vendor18_tyresense', auth: 'session_login', credentials: 'username_password', format: 'json', minPollSeconds: 60 },
    { id: 'vendor19_connect', auth: 'api_key', credentials: 'api_key', format: 'json', minPollSeconds: 60 },
  ]),
  // Listed so a fleet is told to contact the vendor, rather than that the provider does not exist.
  ...entries('stub', [
    { id: 'vendor20_tireview', auth: 'none', credentials: 'none', format: 'json', minPollSeconds: 3600 },
    { id: 'vendor21_360', auth: 'none', credentials: 'none', format: 'json', minPollSeconds: 3600 },
  ]),
];

const BY_ID = new Map(PROVIDERS.map((p) => [p.id, p]));

export const PROVIDER_IDS: readonly string[] = PROVIDERS.map((p) => p.id);

export function findProvider(id: string): Provider | undefined {
  return BY_ID.get(id);
}
