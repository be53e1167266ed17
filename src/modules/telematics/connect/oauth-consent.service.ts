import { sha256Hex } from '../../../platform/auth/api-key.js';
import type { Clock } from '../../../platform/core/clock.js';
import type { Db } from '../../../platform/db/schema.js';
import { AppError, notFound } from '../../../platform/core/errors.js';
import type { SecretVault } from '../../../platform/secrets/vault.js';
import { type OAuthTokens, VendorRejectedError, VendorUnavailableError } from '../providers/adapter.js';
import { oauthAdapterFor } from '../providers/adapters.js';
import * as repo from '../connections/connections.repository.js';
import { announce, statusOf } from '../connections/connections.service.js';
import type { ProviderEndpoints } from '../providers/endpoints.js';
import { findProvider } from '../providers/catalog.js';

/** What the fleet owner's browser is shown after the vendor sends it back. */
interface ConsentPage {
  status: number;
  title: string;
  message: string;
}

interface CallbackQuery {
  state?: string | undefined;
  code?: string | undefined;
  error?: string | undefined;
}

/** Refresh this long before the access token expires, so a poll never starts with one about to lapse. */
export const REFRESH_AHEAD_MS = 5 * 60 * 1000;

const page = (status: number, title: string, message: string): ConsentPage => ({ status, title, message });

const INVALID = page(400, 'This link is not valid', 'This consent link is unknown or was already used. Start again from the connect page.');

/** The OEM providers' OAuth consent: the vendor's redirect back (code for tokens), and fresh access tokens after it. */
export class OAuthConsentService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly vault: SecretVault,
    private readonly endpoints: ProviderEndpoints,
    private readonly callbackUrl: string,
  ) {}

  /** GET /connect/oauth/callback: never throws; every outcome is a page for a person. */
  async complete(query: CallbackQuery): Promise<ConsentPage> {
    if (!query.state) return INVALID;
    const stateHash = sha256Hex(query.state);
    const row = await repo.findByConsentState(this.db, stateHash);
    if (row === undefined || row.status !== 'pending_consent') return INVALID;
    const now = this.clock.now();
    if (statusOf(row, now) === 'consent_expired') {
      await repo.endConsent(this.db, row.id, stateHash, { status: 'consent_expired', oauth_tokens_ciphertext: null, updated_at: now.toISOString() });
      return page(410, 'The time to connect ran out', 'Consent was not given in time. Ask for a new connect link and start again.');
    }
    if (query.error !== undefined) {
      const denied = query.error === 'access_denied';
      return page(
        denied ? 403 : 400,
        denied ? 'Consent was declined' : 'The vendor reported a problem',
        `${denied ? 'Access was not granted, so the account is not connected.' : 'The vendor did not complete the consent.'} You can open the consent link again before it expires.`,
      );
    }
    if (!query.code) return page(400, 'The vendor sent no authorization', 'The vendor came back without an authorization code. Open the consent link again.');
    const provider = findProvider(row.provider);
    const adapter = provider === undefined ? undefined : oauthAdapterFor(provider);
    const endpoint = provider === undefined ? undefined : this.endpoints.of(provider);
    if (adapter === undefined || endpoint === undefined || row.consent_verifier_ciphertext === null) {
      return page(503, 'Not available', 'This provider is not configured on this gateway any more. Contact the operator.');
    }
    let tokens: OAuthTokens;
    try {
      const codeVerifier = await this.vault.decrypt(row.consent_verifier_ciphertext, row.id);
      tokens = await adapter.exchangeCode(endpoint, { code: query.code, codeVerifier, redirectUri: this.callbackUrl }, now);
    } catch (err) {
      if (err instanceof VendorRejectedError) return page(400, 'The vendor refused the authorization', `${err.message}. Open the consent link again.`);
      if (err instanceof VendorUnavailableError) return page(502, 'The vendor could not be reached', 'Try the consent link again in a moment.');
      throw err;
    }
    const ciphertext = await this.vault.encrypt(JSON.stringify(tokens), row.id);
    const outcome = { status: 'active', oauth_tokens_ciphertext: ciphertext, updated_at: this.clock.now().toISOString() };
    const done = await this.db.transaction().execute(async (tx) => {
      const ended = await repo.endConsent(tx, row.id, stateHash, outcome);
      if (ended) await announce(tx, 'connected', { ...row, ...outcome, consent_state_hash: null, consent_verifier_ciphertext: null }, this.clock.now());
      return ended;
    });
    if (!done) return INVALID;
    return page(200, 'Account connected', `Your ${row.provider} account is connected. You can close this window.`);
  }

  /**
   * A usable access token for an OAuth connection, refreshed first when it expires within REFRESH_AHEAD_MS; a refresh
   * the vendor refuses leaves the connection reauth_required (VendorRejectedError is rethrown for the caller).
   */
  async accessToken(orgId: string, connectionId: string): Promise<string> {
    const row = await repo.findConnection(this.db, orgId, connectionId);
    if (row === undefined) throw notFound(`connection ${connectionId}`);
    if (row.oauth_tokens_ciphertext === null || row.status !== 'active') throw new AppError('connection_not_active', `connection ${connectionId} has no active OAuth consent (${statusOf(row, this.clock.now())})`);
    const tokens = JSON.parse(await this.vault.decrypt(row.oauth_tokens_ciphertext, row.id)) as OAuthTokens;
    const now = this.clock.now();
    const fresh = tokens.expires_at === undefined || Date.parse(tokens.expires_at) - now.getTime() > REFRESH_AHEAD_MS;
    if (fresh) return tokens.access_token;
    const provider = findProvider(row.provider);
    const adapter = provider === undefined ? undefined : oauthAdapterFor(provider);
    const endpoint = provider === undefined ? undefined : this.endpoints.of(provider);
    if (adapter === undefined || endpoint === undefined || tokens.refresh_token === undefined) {
      await repo.updateOAuth(this.db, row.id, { status: 'reauth_required', updated_at: now.toISOString() });
      throw new VendorRejectedError(`${row.provider} gave no way to refresh the access token; the fleet must connect again`);
    }
    try {
      const next = await adapter.refresh(endpoint, tokens.refresh_token, now);
      // Vendors that do not rotate refresh tokens answer without one: the old one stays valid.
      const stored: OAuthTokens = { ...next, ...(next.refresh_token === undefined ? { refresh_token: tokens.refresh_token } : {}) };
      await repo.updateOAuth(this.db, row.id, { oauth_tokens_ciphertext: await this.vault.encrypt(JSON.stringify(stored), row.id), updated_at: this.clock.now().toISOString() });
      return stored.access_token;
    } catch (err) {
      if (err instanceof VendorRejectedError) await repo.updateOAuth(this.db, row.id, { status: 'reauth_required', updated_at: this.clock.now().toISOString() });
      throw err;
    }
  }
}
