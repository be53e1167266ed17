import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { type Actor, SYSTEM_ACTOR } from '../../../platform/core/actor.js';
import { recordAudit } from '../../../platform/audit/audit.service.js';
import { sha256Hex } from '../../../platform/auth/api-key.js';
import { invalidFromIssues } from '../../../platform/core/issues.js';
import type { Clock } from '../../../platform/core/clock.js';
import type { BeforeCommit, Db } from '../../../platform/db/schema.js';
import { AppError, invalidInput, notFound } from '../../../platform/core/errors.js';
import { freeText } from '../../../platform/core/text-rules.js';
import type { OrgsService } from '../../../platform/orgs/orgs.service.js';
import * as repo from './connect-tokens.repository.js';
import * as connections from '../connections/connections.repository.js';
import { findProvider, PROVIDER_IDS } from '../providers/catalog.js';

const CONNECT_TOKEN_PREFIX = 'ct_';
/** Spec section 8: a connect token lives 15 minutes and is used once. */
export const CONNECT_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

const issueInput = z.strictObject({
  org: z.string().min(1, { error: 'org is required' }),
  provider: z.string().optional(),
  label: freeText(100, { trim: true, min: 1, what: 'label' }).optional(),
  connection: z.string().min(1, { error: 'connection must be a connection id (con_…)' }).max(100).optional(),
});
type IssueConnectTokenInput = z.input<typeof issueInput>;

/** The token itself is shown this once; only its hash is stored. */
interface IssuedConnectToken {
  connect_token: string;
  expires_at: string;
  org: string;
  provider: string | null;
  label: string | null;
  /** The connection the token reconnects; null for a token that links a new account. */
  connection: string | null;
}

/** The provider a token may be fixed to: a known one that can be connected here. */
function checkProvider(id: string): string {
  const provider = findProvider(id);
  if (provider === undefined) throw invalidInput(`unknown provider '${id}'; valid providers: ${PROVIDER_IDS.join(', ')}`, undefined, 'provider');
  // A token fixed to a provider nobody can connect could never be used; the fleet is told the same at POST /connect.
  if (provider.group === 'stub') throw new AppError('provider_not_connectable', `${id} cannot be connected through the gateway yet: contact the vendor`, undefined, undefined, 'provider');
  return provider.id;
}

/** Connect tokens, issued by the operator (the hub) for a fleet owner to link a telematics account with. */
export class ConnectTokensService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
  ) {}

  async issue(raw: IssueConnectTokenInput, actor: Actor = SYSTEM_ACTOR, beforeCommit?: BeforeCommit<IssuedConnectToken>): Promise<IssuedConnectToken> {
    const parsed = issueInput.safeParse(raw);
    if (!parsed.success) throw invalidFromIssues(parsed.error.issues, 'connect token request');
    const input = parsed.data;
    const org = await this.orgs.bySlug(input.org);
    let provider = input.provider === undefined ? null : checkProvider(input.provider);
    let connectionId: string | null = null;
    if (input.connection !== undefined) {
      // Another org's connection is as unknown as a missing one (404, never 403).
      const existing = await connections.findConnection(this.db, org.id, input.connection);
      if (existing === undefined) throw notFound(`connection ${input.connection}`);
      // Disconnected is final: its credentials are gone and the row is the record; the fleet links the account anew.
      if (existing.status === 'disconnected') throw new AppError('connection_not_active', `connection ${existing.id} was disconnected: issue a token without \`connection\` to link the account anew`);
      if (provider !== null && provider !== existing.provider) {
        throw invalidInput(`connection ${existing.id} is a ${existing.provider} connection: a token to reconnect it cannot be for ${provider}`, undefined, 'provider');
      }
      // A reconnect replaces the credentials of the same account kind, so the token is fixed to its provider.
      provider = existing.provider;
      connectionId = existing.id;
    }
    const token = CONNECT_TOKEN_PREFIX + randomBytes(24).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + CONNECT_TOKEN_LIFETIME_MS).toISOString();
    const issued = { connect_token: token, expires_at: expiresAt, org: org.slug, provider, label: input.label ?? null, connection: connectionId };
    await this.db.transaction().execute(async (tx) => {
      await repo.insertConnectToken(tx, {
        token_hash: sha256Hex(token),
        org_id: org.id,
        provider,
        label: input.label ?? null,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        used_at: null,
        connection_id: connectionId,
      });
      // The token itself is never stored, so the trail names what it will connect: the connection, or else the org.
      await recordAudit(tx, this.clock, actor, { action: 'connect_token.issued', target: connectionId ?? org.id, orgId: org.id });
      await beforeCommit?.(tx, issued);
    });
    return issued;
  }
}
