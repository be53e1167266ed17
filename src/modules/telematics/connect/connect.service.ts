import { createHash, randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { sha256Hex } from '../../../platform/auth/api-key.js';
import type { Clock } from '../../../platform/core/clock.js';
import type { Db, Tx } from '../../../platform/db/schema.js';
import { AppError, invalidInput, notFound } from '../../../platform/core/errors.js';
import { newId } from '../../../platform/core/ids.js';
import { invalidFromIssues } from '../../../platform/core/issues.js';
import { maskHint } from '../../../platform/secrets/mask.js';
import type { SecretVault } from '../../../platform/secrets/vault.js';
import { type Credentials, needsFleetId, type ProviderEndpoint } from '../providers/adapter.js';
import { credentialAdapterFor, oauthAdapterFor } from '../providers/adapters.js';
import * as tokens from './connect-tokens.repository.js';
import * as connections from '../connections/connections.repository.js';
import { announce } from '../connections/connections.service.js';
import { CLOSED } from '../polling/breaker.js';
import type { VendorRateGate } from '../polling/rate-gate.js';
import type { ProviderEndpoints } from '../providers/endpoints.js';
import { findProvider, type Provider, PROVIDER_IDS } from '../providers/catalog.js';
import { apiKeyCredentials, type ConnectBody, type ConnectOutput, noCredentials, usernamePassword } from '../telematics.schemas.js';
import { vendorError } from '../providers/vendor-errors.js';

/** How long a fleet owner has to give consent at the vendor after connecting (the authorize link's life). */
export const CONSENT_LIFETIME_MS = 30 * 60 * 1000;

export const OAUTH_CALLBACK_PATH = '/connect/oauth/callback';

const CREDENTIALS_SCHEMA: Record<Provider['credentials'], z.ZodType<Credentials>> = {
  username_password: usernamePassword,
  api_key: apiKeyCredentials,
  none: noCredentials,
};

/** Spec section 7's token checks, in its order: unknown 404, used 409, expired 410. */
function checkUsable(token: tokens.ConnectTokenRow | undefined, now: Date): tokens.ConnectTokenRow {
  if (token === undefined) throw notFound('connect token');
  if (token.used_at !== null) throw new AppError('token_used', 'this connect token was already used; ask for a new one', undefined, undefined, 'token');
  if (token.expires_at <= now.toISOString()) throw new AppError('token_expired', 'this connect token has expired (tokens live 15 minutes); ask for a new one', undefined, undefined, 'token');
  return token;
}

function credentialsFor(provider: Provider, sent: Record<string, string> | undefined): Credentials {
  const parsed = CREDENTIALS_SCHEMA[provider.credentials].safeParse(sent ?? {});
  if (parsed.success) return parsed.data;
  throw invalidFromIssues(parsed.error.issues, `credentials for ${provider.id}`, ['credentials']);
}

/** A fleet id is one path segment at the vendor: nothing that needs escaping, nothing that moves up a level. */
const FLEET_ID = /^(?!\.{1,2}$)[A-Za-z0-9._~-]{1,100}$/;

/** The fleet's id at the vendor when the provider's configured paths name one (`/{fleet_id}/Fleet/{page}`); refused otherwise. */
function fleetIdFor(provider: Provider, endpoint: ProviderEndpoint, given: string | undefined): string | undefined {
  if (!needsFleetId(endpoint)) {
    if (given === undefined) return undefined;
    throw invalidInput(`credentials.fleet_id: ${provider.id} takes no fleet id on this gateway`, [{ path: 'credentials.fleet_id', message: 'not used by this provider' }]);
  }
  if (given !== undefined && FLEET_ID.test(given)) return given;
  const message = given === undefined ? 'is required' : "must be 1-100 letters, digits, '.', '_', '~' or '-'";
  throw invalidInput(`credentials.fleet_id ${message}: ${provider.id} reads each fleet under its own id at the vendor`, [{ path: 'credentials.fleet_id', message }]);
}

/** What a response may show of the credentials. */
function hintOf(credentials: Credentials): string | null {
  if (credentials.username !== undefined) return maskHint(credentials.username, credentials.username.includes('@') ? 'email' : 'username');
  if (credentials.api_key !== undefined) return maskHint(credentials.api_key, 'secret');
  return null;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** What the fleet owner gave for a credentials provider: the credentials, and the fleet's id at the vendor if it takes one. */
interface Account {
  credentials: Credentials;
  fleetId: string | null;
}

/**
 * POST /connect: a fleet owner links a telematics account with a connect token. Everything that can fail without
 * spending the token (its state, the provider, the credentials, the vendor's verdict) is checked first; the token is
 * consumed and the connection created (or, with a reconnect token, given its new credentials) in one transaction at the end.
 */
export class ConnectService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly vault: SecretVault,
    private readonly endpoints: ProviderEndpoints,
    /** The gateway's public URL, where the vendor sends the fleet owner back after consent. */
    private readonly publicUrl: string,
    /** Counts the connect check against the vendor's per-URL budget, which the first poll then keeps to. */
    private readonly gate: VendorRateGate,
  ) {}

  get callbackUrl(): string {
    return `${this.publicUrl}${OAUTH_CALLBACK_PATH}`;
  }

  async connect(body: ConnectBody): Promise<ConnectOutput> {
    const tokenHash = sha256Hex(body.connect_token);
    const token = checkUsable(await tokens.findConnectToken(this.db, tokenHash), this.clock.now());
    const provider = findProvider(body.provider);
    if (provider === undefined) throw invalidInput(`unknown provider '${body.provider}'; valid providers: ${PROVIDER_IDS.join(', ')}`, undefined, 'provider');
    if (token.provider !== null && token.provider !== provider.id) {
      throw invalidInput(token.connection_id === null ? `this connect token is for ${token.provider}, not ${provider.id}` : `this connect token reconnects a ${token.provider} connection, not ${provider.id}`);
    }
    if (provider.group === 'stub') {
      throw new AppError('provider_not_connectable', `${provider.id} cannot be connected through the gateway yet: contact the vendor to link this account; your connect token is still valid`, undefined, undefined, 'provider');
    }
    const { fleet_id: givenFleetId, ...sent } = body.credentials ?? {};
    const credentials = credentialsFor(provider, body.credentials === undefined ? undefined : sent);
    const endpoint = this.endpoints.of(provider);
    if (endpoint === undefined) throw new AppError('unavailable', `${provider.id} is not configured on this gateway; contact the operator`);
    const fleetId = fleetIdFor(provider, endpoint, givenFleetId);
    const account = { credentials, fleetId: fleetId ?? null };
    if (token.connection_id !== null) return this.reconnect(provider, endpoint, account, tokenHash, token, token.connection_id, body.label);
    return provider.auth === 'oauth_authorization_code'
      ? this.startConsent(provider, endpoint, tokenHash, token, body.label)
      : this.linkWithCredentials(provider, endpoint, account, tokenHash, token, body.label);
  }

  private async linkWithCredentials(
    provider: Provider,
    endpoint: ProviderEndpoint,
    account: Account,
    tokenHash: string,
    token: tokens.ConnectTokenRow,
    label: string | undefined,
  ): Promise<ConnectOutput> {
    const id = newId('con', this.clock.now());
    const firstPoll = await this.verify(provider, endpoint, account, id);
    const now = this.clock.now();
    const row = this.newRow(id, provider, endpoint, tokenHash, token, label, now, {
      status: 'active',
      credentials_ciphertext: await this.vault.encrypt(JSON.stringify(account.credentials), id),
      credentials_hint: hintOf(account.credentials),
      fleet_id: account.fleetId,
      next_poll_at: firstPoll,
    });
    await this.create(row, tokenHash);
    return { connection_id: id, provider: provider.id };
  }

  /**
   * The vendor's verdict on the credentials, before anything is written or the token spent. Its calls count against
   * the vendor's per-URL budget, if it has one; the answer is when the first poll may then fetch them (null: at once).
   */
  private async verify(provider: Provider, endpoint: ProviderEndpoint, account: Account, connectionId: string): Promise<string | null> {
    const adapter = credentialAdapterFor(provider);
    if (adapter === undefined) throw new AppError('unavailable', `${provider.id} has no adapter on this gateway`);
    const interval = endpoint.urlIntervalSeconds;
    let waitS = 0;
    const count = async ({ method, url }: { method: string; url: string }): Promise<void> => {
      if (interval !== undefined && method === 'GET') waitS = Math.max(waitS, await this.gate.countUrl(connectionId, url, interval));
    };
    const counted: ProviderEndpoint = interval === undefined ? endpoint : { ...endpoint, beforeCall: count };
    try {
      await adapter.verify(provider, counted, account.fleetId === null ? account.credentials : { ...account.credentials, fleet_id: account.fleetId });
    } catch (err) {
      throw vendorError(err, provider.id);
    }
    return waitS === 0 ? null : new Date(this.clock.now().getTime() + waitS * 1000).toISOString();
  }

  /** A new consent's state, PKCE verifier (encrypted for the connection), expiry and the vendor's authorize link. */
  private async newConsent(endpoint: ProviderEndpoint, adapter: NonNullable<ReturnType<typeof oauthAdapterFor>>, id: string, now: Date) {
    const state = base64url(randomBytes(32));
    const verifier = base64url(randomBytes(32));
    const expiresAt = new Date(now.getTime() + CONSENT_LIFETIME_MS).toISOString();
    const authorizeUrl = adapter.authorizeUrl(endpoint, {
      state,
      codeChallenge: base64url(createHash('sha256').update(verifier).digest()),
      redirectUri: this.callbackUrl,
    });
    return {
      columns: { consent_state_hash: sha256Hex(state), consent_verifier_ciphertext: await this.vault.encrypt(verifier, id), consent_expires_at: expiresAt },
      nextStep: { type: 'oauth_consent' as const, authorize_url: authorizeUrl, expires_at: expiresAt },
    };
  }

  private oauthAdapterOf(provider: Provider, endpoint: ProviderEndpoint) {
    const adapter = oauthAdapterFor(provider);
    if (adapter === undefined || endpoint.clientId === undefined) throw new AppError('unavailable', `${provider.id} has no OAuth client configured on this gateway; contact the operator`);
    return adapter;
  }

  /**
   * A reconnect token: the same connection gets the new credentials (verified first) and is active again with a closed
   * breaker and due at once, or for an OAuth provider a new consent. Its id, cursors (nothing is sent twice), interval
   * and last_error (history) stay.
   */
  private async reconnect(
    provider: Provider,
    endpoint: ProviderEndpoint,
    account: Account,
    tokenHash: string,
    token: tokens.ConnectTokenRow,
    connectionId: string,
    label: string | undefined,
  ): Promise<ConnectOutput> {
    const existing = await connections.findConnection(this.db, token.org_id, connectionId);
    if (existing === undefined) throw notFound(`connection ${connectionId}`);
    // Disconnected after this token was issued: the token is not spent, the fleet asks for one that links anew.
    if (existing.status === 'disconnected') throw new AppError('connection_not_active', `connection ${connectionId} was disconnected; ask for a new connect token to link the account anew`);
    const oauth = provider.auth === 'oauth_authorization_code';
    const adapter = oauth ? this.oauthAdapterOf(provider, endpoint) : undefined;
    const firstPoll = oauth ? null : await this.verify(provider, endpoint, account, connectionId);
    const { credentials } = account;
    const now = this.clock.now();
    const consent = adapter === undefined ? undefined : await this.newConsent(endpoint, adapter, connectionId, now);
    const change: Parameters<typeof connections.reconnect>[3] = {
      status: consent === undefined ? 'active' : 'pending_consent',
      label: label ?? token.label ?? existing.label,
      credentials_ciphertext: consent === undefined ? await this.vault.encrypt(JSON.stringify(credentials), connectionId) : null,
      credentials_hint: consent === undefined ? hintOf(credentials) : null,
      // The refused tokens are of no more use; the callback stores the new ones.
      oauth_tokens_ciphertext: null,
      vendor_token_ciphertext: null,
      fleet_id: account.fleetId,
      consent_state_hash: consent?.columns.consent_state_hash ?? null,
      consent_verifier_ciphertext: consent?.columns.consent_verifier_ciphertext ?? null,
      consent_expires_at: consent?.columns.consent_expires_at ?? null,
      breaker_state: CLOSED.state,
      consecutive_failures: CLOSED.consecutive_failures,
      open_until: CLOSED.open_until,
      cooldown_s: CLOSED.cooldown_s,
      next_poll_at: firstPoll,
      updated_at: now.toISOString(),
    };
    await this.spend(tokenHash, async (tx) => {
      if (!(await connections.reconnect(tx, token.org_id, connectionId, change))) throw notFound(`connection ${connectionId}`);
      if (change.status === 'active') await announce(tx, 'connected', { ...existing, ...change }, now);
    });
    return { connection_id: connectionId, provider: provider.id, ...(consent === undefined ? {} : { next_step: consent.nextStep }) };
  }

  private async startConsent(
    provider: Provider,
    endpoint: ProviderEndpoint,
    tokenHash: string,
    token: tokens.ConnectTokenRow,
    label: string | undefined,
  ): Promise<ConnectOutput> {
    const adapter = this.oauthAdapterOf(provider, endpoint);
    const now = this.clock.now();
    const id = newId('con', now);
    const consent = await this.newConsent(endpoint, adapter, id, now);
    const row = this.newRow(id, provider, endpoint, tokenHash, token, label, now, { status: 'pending_consent', ...consent.columns });
    await this.create(row, tokenHash);
    return { connection_id: id, provider: provider.id, next_step: consent.nextStep };
  }

  private newRow(
    id: string,
    provider: Provider,
    endpoint: ProviderEndpoint,
    tokenHash: string,
    token: tokens.ConnectTokenRow,
    label: string | undefined,
    now: Date,
    rest: Partial<connections.ConnectionRow> & Pick<connections.ConnectionRow, 'status'>,
  ): connections.ConnectionRow {
    return {
      id,
      org_id: token.org_id,
      provider: provider.id,
      label: label ?? token.label,
      credentials_ciphertext: null,
      credentials_hint: null,
      oauth_tokens_ciphertext: null,
      fleet_id: null,
      vendor_token_ciphertext: null,
      consent_state_hash: null,
      consent_verifier_ciphertext: null,
      consent_expires_at: null,
      connect_token_hash: tokenHash,
      poll_interval_s: endpoint.pollIntervalSeconds ?? provider.minPollSeconds,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      next_poll_at: null,
      lease_owner: null,
      lease_until: null,
      cursors: null,
      breaker_state: 'closed',
      consecutive_failures: 0,
      open_until: null,
      cooldown_s: 0,
      last_run: null,
      last_error: null,
      last_hub_rejections: null,
      issues: null,
      ...rest,
    };
  }

  /** Spends the token and creates the connection together; the hub hears of it once it is active. */
  private create(row: connections.ConnectionRow, tokenHash: string): Promise<void> {
    return this.spend(tokenHash, async (tx) => {
      await connections.insertConnection(tx, row);
      if (row.status === 'active') await announce(tx, 'connected', row, new Date(row.created_at));
    });
  }

  /** Spends the token and does `write` in one transaction; a racing call that lost sees why (409, or 410 if it expired meanwhile). */
  private async spend(tokenHash: string, write: (tx: Tx) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const now = this.clock.now();
      if (!(await tokens.consumeConnectToken(tx, tokenHash, now.toISOString()))) {
        checkUsable(await tokens.findConnectToken(tx, tokenHash), now);
        throw new AppError('token_used', 'this connect token was already used; ask for a new one', undefined, undefined, 'token');
      }
      await write(tx);
    });
  }
}
