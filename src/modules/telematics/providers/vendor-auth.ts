import type { Provider } from './catalog.js';
import { VendorDocumentInvalidError, type Credentials, type ProviderEndpoint } from './adapter.js';
import { callVendor, parseJson, stringAt } from './vendor-http.js';

/** Turns a fleet's credentials into the headers of an authenticated data call, per the provider's auth style. */

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/** What the fleet owner is told when the vendor refuses: which provider, which kind of credential. */
export function refusedMessage(provider: Provider): string {
  return provider.credentials === 'api_key' ? `${provider.id} refused the API key` : `${provider.id} refused the username or password`;
}

/** A bearer token a login or token call handed out, with its life when the vendor said it. */
export interface VendorToken {
  accessToken: string;
  expiresInSeconds?: number;
}

async function tokenFrom(provider: Provider, endpoint: ProviderEndpoint, target: { baseUrl?: string; path: string }, tokenKey: string, init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> }): Promise<VendorToken> {
  const res = await callVendor(provider.id, endpoint, { method: 'POST', ...target, ...init, rejected: refusedMessage(provider) });
  const body = parseJson(provider.id, res);
  const token = stringAt(body, tokenKey);
  if (token === undefined) throw new VendorDocumentInvalidError(provider.id, target.path === '' ? (target.baseUrl ?? '') : target.path, `the answer holds no ${tokenKey}`);
  const expiresIn = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).expires_in : undefined;
  return { accessToken: token, ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0 ? { expiresInSeconds: expiresIn } : {}) };
}

/** Where an OAuth token request goes: the configured token URL, else `{baseUrl}/oauth/token`. */
export function tokenTarget(endpoint: ProviderEndpoint): { baseUrl?: string; path: string } {
  return endpoint.tokenUrl === undefined ? { path: '/oauth/token' } : { baseUrl: endpoint.tokenUrl, path: '' };
}

/** What every token request of the provider carries besides its grant: scope, audience and the operator's extra parameters. */
export function tokenExtras(endpoint: ProviderEndpoint): Record<string, string> {
  return { ...endpoint.tokenParams, ...(endpoint.scope === undefined ? {} : { scope: endpoint.scope }), ...(endpoint.audience === undefined ? {} : { audience: endpoint.audience }) };
}

/** Whether the provider's data calls carry a bearer token from a grant the gateway can repeat alone (so it can be cached). */
export function usesGrantToken(provider: Provider): boolean {
  return provider.auth === 'oauth_password' || provider.auth === 'oauth_client_credentials';
}

/** A new access token from the fleet's credentials, for the OAuth password and client-credentials grants. */
export async function grantToken(provider: Provider, endpoint: ProviderEndpoint, credentials: Credentials): Promise<VendorToken> {
  const username = credentials.username ?? '';
  const password = credentials.password ?? '';
  const extras = tokenExtras(endpoint);
  if (provider.auth === 'oauth_password') {
    const client = { client_id: endpoint.clientId ?? '', ...(endpoint.clientSecret ? { client_secret: endpoint.clientSecret } : {}) };
    return tokenFrom(provider, endpoint, tokenTarget(endpoint), 'access_token', { form: { grant_type: 'password', username, password, ...client, ...extras } });
  }
  if (provider.auth === 'oauth_client_credentials') {
    // The fleet's username/password are its OAuth client; RFC 6749 section 2.3.1 prefers them in Basic.
    const headers = { authorization: basic(encodeURIComponent(username), encodeURIComponent(password)) };
    return tokenFrom(provider, endpoint, tokenTarget(endpoint), 'access_token', { form: { grant_type: 'client_credentials', ...extras }, headers });
  }
  throw new Error(`${provider.id} has no OAuth grant the gateway can repeat`);
}

export async function authHeaders(provider: Provider, endpoint: ProviderEndpoint, credentials: Credentials): Promise<Record<string, string>> {
  const username = credentials.username ?? '';
  const password = credentials.password ?? '';
  switch (provider.auth) {
    case 'basic':
      return { authorization: basic(username, password) };
    case 'api_key':
      return { 'x-api-key': credentials.api_key ?? '' };
    case 'oauth_password':
    case 'oauth_client_credentials':
      return { authorization: `Bearer ${(await grantToken(provider, endpoint, credentials)).accessToken}` };
    case 'session_login':
      return { authorization: `Bearer ${(await tokenFrom(provider, endpoint, { path: '/auth/login' }, 'session_token', { json: { username, password } })).accessToken}` };
    case 'oauth_authorization_code':
    case 'none':
      throw new Error(`${provider.id} is not verified with credentials`);
  }
}
