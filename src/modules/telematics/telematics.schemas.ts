import { z } from 'zod';
import { limitParam, sinceParams } from '../../platform/core/pagination.js';
import { freeText, identifier } from '../../platform/core/text-rules.js';
import { PROVIDER_IDS } from './providers/catalog.js';
import type { ReadIssueKind } from './providers/reader.js';
import { orgSlug } from '../../platform/core/org-slug.js';

const CONNECTION_STATUSES = ['active', 'pending_consent', 'consent_expired', 'reauth_required', 'paused', 'disconnected'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

const label = freeText(100, { trim: true, min: 1, what: 'label' });
const timestamp = z.string().describe('ISO 8601 UTC');

const READ_ISSUE_KINDS = ['future_timestamp', 'unmapped_element', 'unknown_unit', 'placeholder', 'budget_wait', 'document_invalid'] as const satisfies readonly ReadIssueKind[];

const cursorsSchema = z
  .object({
    snapshot_at: timestamp.nullable().describe('When the last successful poll started; null before the first and after a reset.'),
    machines: z.number().int().describe('Machines with a mark: each data element of each machine is sent from its own newest reading on.'),
    oldest_mark: timestamp.nullable().describe("The oldest machine's mark: a machine that stopped reporting shows here."),
    newest_mark: timestamp.nullable().describe('The newest reading sent.'),
  })
  .describe('A summary of where polling stands (per machine and data element marks); a replay leaves it as it is, a reset clears it.');

export const connectionSchema = z
  .object({
    id: z.string().describe('The connection id (`con_…`).'),
    provider: z.enum(PROVIDER_IDS as [string, ...string[]]),
    provider_group: z.enum(['iso15143', 'oem_oauth', 'aggregator', 'tpms']),
    label: z.string().nullable(),
    status: z.enum(CONNECTION_STATUSES).describe('active, pending_consent (OAuth consent not given yet), consent_expired, reauth_required, paused, disconnected (polling stopped and credentials erased by DELETE; kept for the record).'),
    credentials_hint: z.string().nullable().describe('A masked hint of the credentials (`fl***@acme.example`, `••••ab12`); the credentials themselves are never returned.'),
    poll_interval_s: z.number().int(),
    consent_expires_at: timestamp.nullable().describe('While consent is pending: when the authorize link stops working.'),
    cursors: cursorsSchema,
    issues: z
      .array(
        z.object({
          kind: z.enum(READ_ISSUE_KINDS).describe(
            'future_timestamp (a reading stamped beyond the allowed clock skew: not sent), unmapped_element, unknown_unit, placeholder, budget_wait, document_invalid (a vendor document that does not parse).',
          ),
          detail: z.string().describe('What it was about: a machine and data element, an element or unit name, a URL path and the parser\'s reason.'),
          count: z.number().int().describe('How many times polls came across it.'),
          first_seen: timestamp,
          last_seen: timestamp,
        }),
      )
      .describe('What polls read and could not use, most recently seen first (at most 50).'),
    breaker: z
      .object({
        state: z.enum(['closed', 'open', 'half_open']),
        consecutive_failures: z.number().int(),
        open_until: timestamp.nullable(),
      })
      .describe('The circuit breaker: open after 5 failed polls in a row, for 1 to 30 minutes; then one trial poll.'),
    next_poll_at: timestamp.nullable().describe('When the poller will poll it next; null: as soon as it can.'),
    last_run: z
      .object({ started_at: timestamp, finished_at: timestamp, events: z.number().int(), outcome: z.enum(['ok', 'failed']) })
      .nullable()
      .describe('The last poll: when, how many events it queued for the hub, how it ended.'),
    last_error: z.object({ at: timestamp, message: z.string() }).nullable().describe('The last failure, kept after later successes.'),
    last_hub_rejections: z
      .array(z.object({ event_id: z.string(), reason: z.string(), at: timestamp }))
      .describe("The hub's last 20 refusals of this connection's events, newest first."),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'TelematicsConnection' });
export type Connection = z.infer<typeof connectionSchema>;

export const listConnectionsQuery = z.strictObject({
  status: z.enum(CONNECTION_STATUSES).optional().describe('Only connections in this status.'),
  ...sinceParams(false),
  limit: limitParam(200, 50).describe('Connections per page, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListConnectionsQuery = z.infer<typeof listConnectionsQuery>;

export const connectionParams = z.strictObject({
  connection_id: identifier(100, 'connection_id').describe('The connection id (`con_…`).'),
});

/**
 * A provider id. The server refuses any other with a 400 naming the valid ones, but after the connect token is checked
 * (the spec's order), so the enum is the documented schema's (`meta`) rather than a check that would run first.
 */
const providerId = z
  .string({ error: 'provider is required' })
  .min(1)
  .max(100)
  .meta({ enum: [...PROVIDER_IDS] });

/** POST /connect's body. */
export const connectBody = z.strictObject({
  connect_token: z.string({ error: 'connect_token is required' }).min(1, { error: 'connect_token is required' }).max(256).describe('The `ct_…` token the hub issued.'),
  provider: providerId.describe('The provider of the account to link (the stubs among them answer 422).'),
  credentials: z
    .record(z.string().max(64), z.string().max(2048))
    .optional()
    .describe('`{ username, password }` or `{ api_key }` as the provider takes, with `fleet_id` (the fleet\'s id at the vendor) where the provider\'s configured paths name one; none for the OAuth-consent providers.'),
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
  org: orgSlug('org').describe('The slug of the organisation the connection will belong to.'),
  provider: providerId.optional().describe('Fix the provider the token may connect (a stub is refused).'),
  label: label.optional().describe('A label for the connection, up to 100 characters.'),
  connection: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe("Reconnect this existing connection (`con_…`) of the org: POST /connect then replaces its credentials (or starts a new consent) and keeps its id and marks (`reset-cursors` clears them). The provider is fixed to the connection's."),
});

export const issuedTokenSchema = z.object({
  connect_token: z.string().describe('The `ct_…` token: shown once, only its SHA-256 hash is stored.'),
  expires_at: timestamp,
  org: z.string(),
  provider: z.string().nullable(),
  label: z.string().nullable(),
  connection: z.string().nullable().describe('The connection this token reconnects; null for a new one.'),
});

const zonedInstant = (what: string) =>
  z.iso.datetime({ offset: true, error: `${what} must be an ISO 8601 timestamp with a zone (Z or +hh:mm)` }).transform((v) => new Date(v));

const bothInstants = (w: { from: unknown; to: unknown }) => w.from instanceof Date && w.to instanceof Date;

/** Spec section 8: a replay window is at most 31 days. */
const REPLAY_MAX_DAYS = 31;

export const replayBody = z
  .strictObject({
    from: zonedInstant('from').describe('Start of the window (inclusive), ISO 8601 with a zone.'),
    to: zonedInstant('to').describe('End of the window, ISO 8601 with a zone; not in the future.'),
  })
  // Zod runs object checks even when a field failed: each rule judges two valid instants only.
  .refine((w) => !bothInstants(w) || w.from < w.to, { error: 'from must be before to', path: ['from'] })
  .refine((w) => !bothInstants(w) || w.to.getTime() - w.from.getTime() <= REPLAY_MAX_DAYS * 86_400_000, {
    error: `the window is at most ${REPLAY_MAX_DAYS} days`,
    path: ['to'],
  });

export const pollOutput = z.object({
  events_enqueued: z.number().int().describe('Events queued for the hub by this poll.'),
  cursors: cursorsSchema.describe('The summary of the marks after it.'),
});

export const SYNC_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export const syncSchema = z
  .object({
    id: z.string().describe('The sync id (`syn_…`).'),
    connection_id: z.string(),
    status: z.enum(SYNC_STATUSES).describe('queued, running, completed, failed (see failure_reason) or cancelled.'),
    from: timestamp.describe('Start of the replayed window.'),
    to: timestamp.describe('End of the replayed window.'),
    progress: z
      .object({
        machines_done: z.number().int(),
        machines_total: z.number().int().describe('0 until the sync has listed the fleet\'s machines.'),
        events_enqueued: z.number().int().describe('Events queued for the hub so far (the hub drops those it already has, by id).'),
      })
      .describe('How far it is.'),
    failure_reason: z.string().nullable().describe('Why it failed; null otherwise.'),
    created_at: timestamp,
    started_at: timestamp.nullable(),
    finished_at: timestamp.nullable(),
  })
  .meta({ id: 'TelematicsSync' });
export type Sync = z.infer<typeof syncSchema>;

export const syncParams = z.strictObject({
  connection_id: identifier(100, 'connection_id').describe('The connection id (`con_…`).'),
  sync_id: identifier(100, 'sync_id').describe('The sync id (`syn_…`).'),
});

export const listSyncsQuery = z.strictObject({
  status: z.enum(SYNC_STATUSES).optional().describe('Only syncs in this status.'),
  limit: limitParam(200, 50).describe('Syncs per page, 1-200 (default 50).'),
  cursor: z.string().max(500).optional().describe('`next_cursor` of the previous page.'),
});
export type ListSyncsQuery = z.infer<typeof listSyncsQuery>;
export const resetCursorsBody = z.strictObject({
  org: orgSlug('org').describe('The slug of the organisation the connection belongs to; another organisation\'s connection is not found.'),
});
