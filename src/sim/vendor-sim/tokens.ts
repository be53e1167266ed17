import { createHash, randomBytes } from 'node:crypto';

/** Access tokens, rotating refresh tokens and PKCE authorization codes of every simulated vendor, in memory. */

const ACCESS_TOKEN_SECONDS = 3600;
export const SESSION_SECONDS = 1800;
const CODE_TTL_MS = 10 * 60_000;

interface CodeGrant {
  provider: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  expiresAt: number;
}

interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

/** Why a code exchange failed, for the error_description. */
type CodeProblem = 'unknown_code' | 'expired_code' | 'redirect_uri_mismatch' | 'client_mismatch' | 'pkce_mismatch';

const opaque = (prefix: string): string => `${prefix}_${randomBytes(18).toString('base64url')}`;

const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

export class TokenStore {
  private access = new Map<string, { provider: string; expiresAt: number; account: string | undefined }>();
  private refresh = new Map<string, { provider: string; clientId: string; account: string | undefined }>();
  private codes = new Map<string, CodeGrant>();
  private issuedBy = new Map<string, number>();

  constructor(private readonly now: () => Date) {}

  /** `account`: whose fleet the token opens (the user name or client id it was issued for), for per-fleet behaviour. */
  issueAccess(provider: string, ttlSeconds = ACCESS_TOKEN_SECONDS, account?: string): string {
    const token = opaque('at');
    this.access.set(token, { provider, expiresAt: this.now().getTime() + ttlSeconds * 1000, account });
    return token;
  }

  /** The account a live or expired access token was issued for. */
  accountOf(token: string): string | undefined {
    return this.access.get(token)?.account;
  }

  accessValid(provider: string, token: string): boolean {
    const grant = this.access.get(token);
    return grant !== undefined && grant.provider === provider && grant.expiresAt > this.now().getTime();
  }

  /** Token pairs issued (every grant, refreshes included), of one provider or all. */
  issued(provider?: string): number {
    return provider === undefined ? [...this.issuedBy.values()].reduce((a, b) => a + b, 0) : (this.issuedBy.get(provider) ?? 0);
  }

  issuePair(provider: string, clientId: string, account?: string): IssuedTokens {
    this.issuedBy.set(provider, (this.issuedBy.get(provider) ?? 0) + 1);
    const refreshToken = opaque('rt');
    this.refresh.set(refreshToken, { provider, clientId, account });
    return { access_token: this.issueAccess(provider, ACCESS_TOKEN_SECONDS, account), token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, refresh_token: refreshToken };
  }

  /** Rotation: the presented refresh token dies and a new pair is issued; undefined when unknown or revoked. */
  rotate(provider: string, refreshToken: string): IssuedTokens | undefined {
    const grant = this.refresh.get(refreshToken);
    if (grant === undefined || grant.provider !== provider) return undefined;
    this.refresh.delete(refreshToken);
    return this.issuePair(provider, grant.clientId, grant.account);
  }

  revokeRefreshTokens(provider?: string): void {
    for (const [token, grant] of this.refresh) if (provider === undefined || grant.provider === provider) this.refresh.delete(token);
  }

  issueCode(grant: Omit<CodeGrant, 'expiresAt'>): string {
    const code = opaque('ac');
    this.codes.set(code, { ...grant, expiresAt: this.now().getTime() + CODE_TTL_MS });
    return code;
  }

  /** A code is spent by its first successful exchange only, so a client can retry a typo'd verifier. */
  redeemCode(provider: string, req: { code: string; clientId: string; redirectUri: string; verifier: string }): IssuedTokens | CodeProblem {
    const grant = this.codes.get(req.code);
    if (grant === undefined || grant.provider !== provider) return 'unknown_code';
    if (grant.expiresAt <= this.now().getTime()) return 'expired_code';
    if (grant.redirectUri !== req.redirectUri) return 'redirect_uri_mismatch';
    if (grant.clientId !== req.clientId) return 'client_mismatch';
    if (s256(req.verifier) !== grant.challenge) return 'pkce_mismatch';
    this.codes.delete(req.code);
    return this.issuePair(provider, grant.clientId);
  }

  clear(): void {
    this.access.clear();
    this.refresh.clear();
    this.codes.clear();
    this.issuedBy.clear();
  }
}
