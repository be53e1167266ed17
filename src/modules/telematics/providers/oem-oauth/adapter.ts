import type { Provider } from '../catalog.js';
import { VendorUnavailableError, type OAuthConsentAdapter, type OAuthTokens, type ProviderEndpoint } from '../adapter.js';
import { callVendor, parseJson, stringAt } from '../vendor-http.js';
import { tokenExtras, tokenTarget } from '../vendor-auth.js';

/**
 * OEM platforms with browser consent: authorization code + PKCE S256 at `{baseUrl}/oauth/authorize` and `/oauth/token`,
 * or where the operator configured them, with the scope and audience the vendor asks for.
 */

function clientOf(endpoint: ProviderEndpoint): Record<string, string> {
  return { client_id: endpoint.clientId ?? '', ...(endpoint.clientSecret ? { client_secret: endpoint.clientSecret } : {}) };
}

function tokensOf(providerId: string, body: unknown, now: Date): OAuthTokens {
  const accessToken = stringAt(body, 'access_token');
  if (accessToken === undefined) throw new VendorUnavailableError(`${providerId} answered the token request without an access token`, 'failed');
  const expiresIn = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).expires_in : undefined;
  const refreshToken = stringAt(body, 'refresh_token');
  const scope = stringAt(body, 'scope');
  return {
    access_token: accessToken,
    token_type: stringAt(body, 'token_type') ?? 'Bearer',
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    ...(typeof expiresIn === 'number' && Number.isFinite(expiresIn) ? { expires_at: new Date(now.getTime() + expiresIn * 1000).toISOString() } : {}),
    ...(scope === undefined ? {} : { scope }),
  };
}

export function oemOAuthAdapter(provider: Provider): OAuthConsentAdapter {
  const token = async (endpoint: ProviderEndpoint, form: Record<string, string>, rejected: string, now: Date): Promise<OAuthTokens> => {
    const res = await callVendor(provider.id, endpoint, { method: 'POST', ...tokenTarget(endpoint), form: { ...form, ...clientOf(endpoint), ...tokenExtras(endpoint) }, headers: { accept: 'application/json' }, rejected });
    return tokensOf(provider.id, parseJson(provider.id, res), now);
  };
  return {
    authorizeUrl(endpoint, request) {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: endpoint.clientId ?? '',
        redirect_uri: request.redirectUri,
        state: request.state,
        code_challenge: request.codeChallenge,
        code_challenge_method: 'S256',
        ...(endpoint.scope === undefined ? {} : { scope: endpoint.scope }),
        ...(endpoint.audience === undefined ? {} : { audience: endpoint.audience }),
      });
      const page = endpoint.authorizeUrl ?? `${endpoint.baseUrl.replace(/\/+$/, '')}/oauth/authorize`;
      // A configured authorize URL may carry a query of its own (a tenant, a prompt): ours is added to it.
      return `${page}${page.includes('?') ? '&' : '?'}${query.toString()}`;
    },
    exchangeCode(endpoint, request, now) {
      const form = { grant_type: 'authorization_code', code: request.code, code_verifier: request.codeVerifier, redirect_uri: request.redirectUri };
      return token(endpoint, form, `${provider.id} refused the authorization code; start the connection again`, now);
    },
    refresh(endpoint, refreshToken, now) {
      return token(endpoint, { grant_type: 'refresh_token', refresh_token: refreshToken }, `${provider.id} refused the refresh token; the fleet must connect again`, now);
    },
  };
}
