import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Provider } from '../../modules/telematics/providers/catalog.js';
import { basicCredentials, bearerToken, field, localPath, oauthError, refuse, WRONG_KEY, WRONG_PASSWORD, type RegisterRoutes, type SimContext } from './context.js';
import { SESSION_SECONDS } from './tokens.js';

/** Per auth style: how a data call must prove itself, and the token/login endpoints that hand out bearers. */

/** A preHandler refusing data calls without valid credentials for the provider's auth style. */
export function requireAuth(provider: Provider, ctx: SimContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const problem = authProblem(provider, ctx, request);
    if (problem !== undefined) await refuse(reply, provider, problem);
  };
}

function authProblem(provider: Provider, ctx: SimContext, request: FastifyRequest): string | undefined {
  switch (provider.auth) {
    case 'basic': {
      const creds = basicCredentials(request);
      if (creds === undefined) return 'Authentication required.';
      return ctx.rejecting(provider.id) || creds.password === WRONG_PASSWORD ? 'Invalid username or password.' : undefined;
    }
    case 'api_key': {
      const key = request.headers['x-api-key'];
      if (typeof key !== 'string' || key === '') return 'Missing X-Api-Key header.';
      return ctx.rejecting(provider.id) || key === WRONG_KEY ? 'Invalid API key.' : undefined;
    }
    case 'none':
      return 'This provider has no API.';
    default: {
      const token = bearerToken(request);
      if (token === undefined) return 'Bearer token required.';
      return ctx.rejecting(provider.id) || !ctx.tokens.accessValid(provider.id, token) ? 'Invalid or expired token.' : undefined;
    }
  }
}

/** The client of a token request: form fields win, else HTTP Basic (RFC 6749 section 2.3.1 allows both). */
function clientOf(request: FastifyRequest): { id?: string; secret?: string } {
  const basic = basicCredentials(request);
  // Basic client credentials are form-encoded first (RFC 6749 section 2.3.1).
  const decode = (v: string | undefined): string | undefined => {
    if (v === undefined) return undefined;
    try {
      return decodeURIComponent(v.replaceAll('+', ' '));
    } catch {
      return v;
    }
  };
  return { id: field(request.body, 'client_id') ?? decode(basic?.user), secret: field(request.body, 'client_secret') ?? decode(basic?.password) };
}

/** The account a token request speaks for: the user of a password grant, else the OAuth client. */
function tokenAccount(request: FastifyRequest): string | undefined {
  return field(request.body, 'grant_type') === 'password' ? field(request.body, 'username') : clientOf(request).id;
}

/** What the account's vendor asks of a token request beyond the grant (a scope, an audience), or undefined when it is met. */
function missingAsk(request: FastifyRequest, ctx: SimContext, provider: Provider): { error: string; description: string } | undefined {
  const ask = ctx.fleetOf(provider.id, tokenAccount(request)).endpoints;
  const scopes = (field(request.body, 'scope') ?? '').split(' ');
  if (ask?.requireScope !== undefined && !scopes.includes(ask.requireScope)) return { error: 'invalid_scope', description: `scope ${ask.requireScope} is required` };
  if (ask?.requireAudience !== undefined && field(request.body, 'audience') !== ask.requireAudience) return { error: 'invalid_request', description: `audience ${ask.requireAudience} is required` };
  return undefined;
}

/**
 * `POST /oauth/token` for every OAuth style (or the path the account's fleet moved it to, `/oauth/token` then 404),
 * `POST /auth/login` for session logins.
 */
export const registerAuthRoutes: RegisterRoutes = (app, provider, ctx) => {
  if (provider.auth === 'session_login') {
    app.post('/auth/login', async (request, reply) => {
      const username = field(request.body, 'username');
      const password = field(request.body, 'password');
      if (username === undefined || password === undefined) return reply.code(400).send({ error: 'bad_request', message: 'username and password are required' });
      if (ctx.rejecting(provider.id) || password === WRONG_PASSWORD) return refuse(reply, provider, 'Login failed: invalid username or password.');
      return { session_token: ctx.tokens.issueAccess(provider.id, SESSION_SECONDS, username), expires_in: SESSION_SECONDS };
    });
    return;
  }
  if (!provider.auth.startsWith('oauth_')) return;

  const notHere = (reply: FastifyReply) => reply.code(404).send({ error: 'not_found', message: 'no such endpoint' });
  app.post('/oauth/token', async (request, reply) => {
    const moved = ctx.fleetOf(provider.id, tokenAccount(request)).endpoints?.tokenPath;
    return moved === undefined || moved === '/oauth/token' ? token(request, reply) : notHere(reply);
  });
  // Any other path is the token endpoint only for an account whose fleet put it there.
  app.post('/*', async (request, reply) => (ctx.fleetOf(provider.id, tokenAccount(request)).endpoints?.tokenPath === localPath(request, provider) ? token(request, reply) : notHere(reply)));

  async function token(request: FastifyRequest, reply: FastifyReply) {
    const body = request.body;
    const grant = field(body, 'grant_type');
    const client = clientOf(request);
    if (client.id === undefined) return oauthError(reply, 'invalid_request', 'client_id is required');
    const rejecting = ctx.rejecting(provider.id);
    const missing = missingAsk(request, ctx, provider);
    if (missing !== undefined) return oauthError(reply, missing.error, missing.description);
    if (grant === 'refresh_token') {
      const token = field(body, 'refresh_token');
      if (token === undefined) return oauthError(reply, 'invalid_request', 'refresh_token is required');
      const issued = rejecting ? undefined : ctx.tokens.rotate(provider.id, token);
      return issued ?? oauthError(reply, 'invalid_grant', 'refresh token is invalid, expired or revoked');
    }
    if (provider.auth === 'oauth_password' && grant === 'password') {
      const username = field(body, 'username');
      const password = field(body, 'password');
      if (username === undefined || password === undefined) return oauthError(reply, 'invalid_request', 'username and password are required');
      if (client.secret === WRONG_PASSWORD) return oauthError(reply, 'invalid_client', 'client authentication failed');
      if (rejecting || password === WRONG_PASSWORD) return oauthError(reply, 'invalid_grant', 'The user name or password is incorrect.');
      return ctx.tokens.issuePair(provider.id, client.id, username);
    }
    if (provider.auth === 'oauth_client_credentials' && grant === 'client_credentials') {
      // Here the client is the fleet itself, so a wrong secret is the fleet's wrong password.
      if (client.secret === undefined) return oauthError(reply, 'invalid_request', 'client_secret is required');
      if (rejecting || client.secret === WRONG_PASSWORD) return oauthError(reply, 'invalid_client', 'client authentication failed');
      return ctx.tokens.issuePair(provider.id, client.id, client.id);
    }
    if (provider.auth === 'oauth_authorization_code' && grant === 'authorization_code') {
      const code = field(body, 'code');
      const redirectUri = field(body, 'redirect_uri');
      const verifier = field(body, 'code_verifier');
      if (code === undefined || redirectUri === undefined || verifier === undefined) {
        return oauthError(reply, 'invalid_request', 'code, redirect_uri and code_verifier are required');
      }
      if (client.secret === WRONG_PASSWORD) return oauthError(reply, 'invalid_client', 'client authentication failed');
      if (rejecting) return oauthError(reply, 'invalid_grant', 'authorization code refused');
      const result = ctx.tokens.redeemCode(provider.id, { code, clientId: client.id, redirectUri, verifier });
      return typeof result === 'string' ? oauthError(reply, 'invalid_grant', result.replaceAll('_', ' ')) : result;
    }
    return oauthError(reply, 'unsupported_grant_type', `grant_type ${grant ?? '(missing)'} is not supported here`);
  }
};
