import type { Provider } from './catalog.js';
import { VendorDocumentInvalidError, type Credentials, type ProviderEndpoint } from './adapter.js';
import { callVendor, parseJson, stringAt } from './vendor-http.js';

/** Turns a fleet's credentials into the headers of an authenticated data call, per the provider's auth style. */

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/** What the fleet owner is told when the vendor refuses: which provider, which kind of credential. */
export function refusedMessage(provider: Provider): string {
  return provider.credentials === 'api_key' ? `${provider.id} refused the API key` : `${provider.id} refused the username or password`;
}

async function bearerFrom(provider: Provider, endpoint: ProviderEndpoint, path: string, tokenKey: string, init: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> }): Promise<string> {
  const res = await callVendor(provider.id, endpoint, { method: 'POST', path, ...init, rejected: refusedMessage(provider) });
  const token = stringAt(parseJson(provider.id, res), tokenKey);
  if (token === undefined) throw new VendorDocumentInvalidError(provider.id, path, `the answer holds no ${tokenKey}`);
  return `Bearer ${token}`;
}

export async function authHeaders(provider: Provider, endpoint: ProviderEndpoint, credentials: Credentials): Promise<Record<string, string>> {
  const username = credentials.username ?? '';
  const password = credentials.password ?? '';
  switch (provider.auth) {
    case 'basic':
      return { authorization: basic(username, password) };
    case 'api_key':
      return { 'x-api-key': credentials.api_key ?? '' };
    case 'oauth_password': {
      const client = { client_id: endpoint.clientId ?? '', ...(endpoint.clientSecret ? { client_secret: endpoint.clientSecret } : {}) };
      return { authorization: await bearerFrom(provider, endpoint, '/oauth/token', 'access_token', { form: { grant_type: 'password', username, password, ...client } }) };
    }
    case 'oauth_client_credentials':
      // The fleet's username/password are its OAuth client; RFC 6749 section 2.3.1 prefers them in Basic.
      return { authorization: await bearerFrom(provider, endpoint, '/oauth/token', 'access_token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basic(encodeURIComponent(username), encodeURIComponent(password)) } }) };
    case 'session_login':
      return { authorization: await bearerFrom(provider, endpoint, '/auth/login', 'session_token', { json: { username, password } }) };
    case 'oauth_authorization_code':
    case 'none':
      throw new Error(`${provider.id} is not verified with credentials`);
  }
}
