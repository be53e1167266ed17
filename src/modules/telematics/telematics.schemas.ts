import { z } from 'zod';
import { limitParam } from '../../platform/http/pagination.js';
import { freeText, identifier } from '../../platform/http/text-rules.js';
import { PROVIDER_IDS } from './providers.js';

export const CONNECTION_STATUSES = ['active', 'pending_consent', 'consent_expired', 'reauth_required', 'paused'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

const label = freeText(100, { trim: true, min: 1, what: 'label' });
const timestamp = z.string().describe('ISO 8601 UTC');

export const connectionSchema = z
  .object({
    id: z.string().describe('The connection id (`con_…`).'),
    provider: z.enum(PROVIDER_IDS as [string, ...string[]]),
    provider_group: z.enum(['iso15143', 'oem_oauth', 'aggregator', 'tpms']),
    label: z.string().nullable(),
    status: z.enum(CONNECTION_STATUSES).describe('active, pending_consent (OAuth consent not given yet), consent_expired, reauth_required, paused.'),
    credentials_hint: z.string().nullable().describe('A masked hint of the credentials (`fl***@acme.example`, `••••ab12`); the credentials themselves are never returned.'),
    poll_interval_seconds: z.number().int(),
    consent_expires_at: timestamp.nullable().describe('While consent is pending: when the authorize link stops working.'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'TelematicsConnection' });
export type Connection = z.infer<typeof connectionSchema>;

export const listConnectionsQuery = z.strictObject({
  limit: limitParam(200, 50).describe('Connections per page, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListConnectionsQuery = z.infer<typeof listConnectionsQuery>;

export const connectionParams = z.strictObject({
  connection_id: identifier(100, 'connection_id').describe('The connection id (`con_…`).'),
});

/** POST /connect's body. The provider is checked after the token (the spec's order), so it is a string here. */
export const connectBody = z.strictObject({
  connect_token: z.string({ error: 'connect_token is required' }).min(1, { error: 'connect_token is required' }).max(256).describe('The `ct_…` token the hub issued.'),
  provider: z.string({ error: 'provider is required' }).min(1).max(100).describe(`One of: ${PROVIDER_IDS.join(', ')}.`),
  credentials: z
    .record(z.string().max(64), z.string().max(2048))
    .optional()
    .describe('`{ username, password }` or `{ api_key }` as the provider takes; none for the OAuth-consent providers.'),
  label: label.optional().describe('A name for the connection, up to 100 characters; the token\'s label otherwise.'),
});
export type ConnectBody = z.infer<typeof connectBody>;

export const usernamePassword = z.strictObject({
  username: z.string({ error: 'username is required' }).min(1, { error: 'username is required' }).max(256),
  password: z.string({ error: 'password is required' }).min(1, { error: 'password is required' }).max(1024),
});
export const apiKeyCredentials = z.strictObject({ api_key: z.string({ error: 'api_key is required' }).min(1, { error: 'api_key is required' }).max(1024) });
export const noCredentials = z.strictObject({}, { error: 'this provider takes no credentials: consent is given at the vendor' });

export const connectOutput = z.object({
  connection_id: z.string(),
  provider: z.string(),
  next_step: z
    .object({
      type: z.literal('oauth_consent'),
      authorize_url: z.string().describe("The vendor's consent page: open it in the fleet owner's browser."),
      expires_at: timestamp.describe('Consent must be given before this time.'),
    })
    .optional()
    .describe('For the OAuth-consent providers: what the fleet owner does next.'),
});
export type ConnectOutput = z.infer<typeof connectOutput>;

export const issueTokenBody = z.strictObject({
  org: z.string().min(1).max(100).describe('The slug of the organisation the connection will belong to.'),
  provider: z.string().min(1).max(100).optional().describe('Fix the provider the token may connect.'),
  label: label.optional().describe('A label for the connection, up to 100 characters.'),
});

export const issuedTokenSchema = z.object({
  connect_token: z.string().describe('The `ct_…` token: shown once, only its SHA-256 hash is stored.'),
  expires_at: timestamp,
  org: z.string(),
  provider: z.string().nullable(),
  label: z.string().nullable(),
});
