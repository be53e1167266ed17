import { z } from 'zod';
import { actorOf, DOOR_SCOPE } from '../../platform/auth/scopes.js';
import { defineRead, defineSteps, defineWrite, type Operation, OPERATOR_NOT_A_TOOL } from '../../platform/operations/operation.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import type { ConnectService } from './connect/connect.service.js';
import type { ConnectTokensService } from './connect/connect-tokens.service.js';
import type { ConnectionsService } from './connections/connections.service.js';
import type { PollService } from './polling/poll.service.js';
import type { SyncService } from './polling/syncs.service.js';
import {
  connectBody,
  connectionParams,
  connectionSchema,
  connectOutput,
  issuedTokenSchema,
  issueTokenBody,
  listConnectionsQuery,
  listSyncsQuery,
  pollOutput,
  replayBody,
  resetCursorsBody,
  syncParams,
  syncSchema,
} from './telematics.schemas.js';

/** Spec section 8: POST /connect takes at most 16 KB and 10 requests per minute per client IP. */
const CONNECT_MAX_BODY_BYTES = 16 * 1024;
const CONNECT_PER_IP_PER_MINUTE = 10;

const exampleConnection = {
  id: 'con_01jx2m8d7k3q9v6t5r4p2n1b0a',
  provider: 'vendor1_livelink',
  provider_group: 'iso15143',
  label: 'North yard',
  status: 'active',
  credentials_hint: 'fl***@acme.example',
  poll_interval_s: 300,
  consent_expires_at: null,
  cursors: { snapshot_at: '2026-06-01T12:05:00.000Z', machines: 48, oldest_mark: '2026-05-29T07:40:00.000Z', newest_mark: '2026-06-01T12:04:31.000Z' },
  issues: [
    { kind: 'future_timestamp', detail: 'LL-0031 location', count: 12, first_seen: '2026-06-01T11:10:02.000Z', last_seen: '2026-06-01T12:05:02.000Z' },
    { kind: 'unmapped_element', detail: 'CumulativeLoadCount', count: 576, first_seen: '2026-06-01T10:00:01.000Z', last_seen: '2026-06-01T12:05:02.000Z' },
  ],
  breaker: { state: 'closed', consecutive_failures: 0, open_until: null },
  next_poll_at: '2026-06-01T12:10:00.000Z',
  last_run: { started_at: '2026-06-01T12:05:00.000Z', finished_at: '2026-06-01T12:05:02.100Z', events: 50, outcome: 'ok' },
  last_error: null,
  last_hub_rejections: [],
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
};

const exampleSync = {
  id: 'syn_01jx2n4f6h8k0m2p4r6t8v0x2z',
  connection_id: exampleConnection.id,
  status: 'queued',
  from: '2026-05-01T00:00:00.000Z',
  to: '2026-05-08T00:00:00.000Z',
  progress: { machines_done: 0, machines_total: 0, events_enqueued: 0 },
  failure_reason: null,
  created_at: '2026-06-01T12:00:00.000Z',
  started_at: null,
  finished_at: null,
};

interface TelematicsOperationServices {
  connections: ConnectionsService;
  connect: ConnectService;
  connectTokens: ConnectTokensService;
  polling: PollService;
  syncs: SyncService;
  orgs: OrgsService;
}

/** The telematics operations: connection reads (API keys, REST and MCP), the public connect and the operator's token issue. */
export function telematicsOperations({ connections, connect, connectTokens, polling, syncs, orgs }: TelematicsOperationServices): Operation[] {
  return [
    defineRead({
      name: 'telematics_connections_list',
      method: 'GET',
      path: '/v1/telematics/connections',
      scope: 'telematics:read',
      summary: 'List telematics connections',
      description:
        "List your organisation's linked telematics accounts, newest first, with their health: status, poll interval, " +
        'cursors (a summary), issues, circuit breaker, last run, last error, and a masked hint of the credentials (never the credentials). ' +
        'Filter by `status`. To sync, pass `updated_since`: every connection changed at or after it (its status, settings, ' +
        'credentials or health: each poll changes an active one), oldest change first. Pass `next_cursor` back as `cursor`.',
      query: listConnectionsQuery,
      output: z.object({ connections: z.array(connectionSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of connections, newest first.',
      errors: {},
      example: { query: { limit: '20' }, response: { connections: [exampleConnection], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => connections.list(db, orgId, query),
    }),
    defineRead({
      name: 'telematics_connections_get',
      method: 'GET',
      path: '/v1/telematics/connections/:connection_id',
      scope: 'telematics:read',
      summary: 'Get a telematics connection',
      description:
        'Get one linked telematics account by id (`con_…`) with its health: status (active, pending_consent, consent_expired, ' +
        'reauth_required, paused, disconnected), the circuit breaker (state, failures in a row, open until), the last poll ' +
        '(when, events queued, outcome), the last error, the next poll, the hub\'s last rejections and the issues: what polls ' +
        'read and could not use (readings stamped in the future, unmapped elements, unknown units, placeholders, budget waits, ' +
        'documents that do not parse), with counts. Also provider, label, masked credentials hint and where polling stands ' +
        '(a summary of the per-machine marks). Use it to tell whether a connection is delivering data and why not.',
      params: connectionParams,
      output: z.object({ connection: connectionSchema }),
      result: 'connection',
      status: 200,
      returns: 'the connection with its health.',
      errors: { not_found: 'No connection with this id in your organisation.' },
      example: { params: { connection_id: exampleConnection.id }, response: { connection: exampleConnection } },
      handle: ({ db, orgId }, { params }) => connections.get(db, orgId, params.connection_id),
    }),
    defineSteps({
      name: 'telematics_connections_run',
      method: 'POST',
      path: '/v1/telematics/connections/:connection_id/run',
      scope: 'telematics:write',
      summary: 'Poll a telematics connection now',
      description:
        'Polls the vendor for this connection now and waits for it: each reading newer than its machine\'s mark for its data ' +
        'element becomes a `telematics.event` for the hub (readings stamped more than the allowed skew in the future are ' +
        'not sent and are counted in issues) and the marks move. Answers how many events were queued and the summary of ' +
        'the marks after. 409 while another poll of it runs, or when it cannot be polled (paused, reauth_required, consent pending or expired).',
      params: connectionParams,
      output: pollOutput,
      status: 200,
      returns: 'the events queued and the summary of the marks after the poll.',
      errors: {
        not_found: 'No connection with this id in your organisation.',
        concurrent_change: 'A poll of it is running.',
        connection_not_active: 'It cannot be polled (paused, reauth_required, consent pending or expired: the message says why).',
        poll_budget_exhausted: 'The vendor\'s request budget for it is spent for now: retry after `Retry-After` seconds.',
        vendor_unreachable: 'The vendor could not be reached (refused connection, unknown host).',
        vendor_error: 'The vendor answered with an error status (`details.status`); counted by the circuit breaker.',
        vendor_document_invalid: 'The vendor answered with a document that cannot be read (`details.path`, `details.reason`).',
        upstream_timeout: 'The vendor did not answer in time; counted by the circuit breaker.',
        unavailable: 'The provider is not configured on this gateway.',
      },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      example: { params: { connection_id: exampleConnection.id }, response: { events_enqueued: 50, cursors: exampleConnection.cursors } },
      handle: ({ orgId, settle }, { params }) => polling.run(orgId, params.connection_id, settle),
    }),
    defineWrite({
      name: 'telematics_connections_replay',
      method: 'POST',
      path: '/v1/telematics/connections/:connection_id/replay',
      scope: 'telematics:write',
      summary: 'Replay a window of telematics history as a background sync',
      description:
        "Queues a sync that re-reads `from`..`to` (at most 31 days, not in the future) from the vendor's time-series " +
        'endpoints, machine by machine and data element by data element, and queues the readings for the hub again with ' +
        'the same event ids (the hub drops those it has). Answers 202 with the sync at once; follow it with ' +
        '`telematics_syncs_get`, stop it with `telematics_syncs_cancel`. The connection\'s regular polls go on meanwhile ' +
        'and its cursors do not move; a restart resumes the sync where it was. The hub gets `telematics.sync.completed` ' +
        'or `telematics.sync.failed` when it ends. ISO 15143-3 feeds only: other providers keep no history the gateway ' +
        'can read (422).',
      params: connectionParams,
      body: replayBody,
      output: z.object({ sync: syncSchema }),
      result: 'sync',
      status: 202,
      returns: 'the queued sync.',
      errors: {
        not_found: 'No connection with this id in your organisation.',
        connection_not_active: 'The connection cannot be read (paused, reauth_required, consent pending or expired).',
        history_unavailable: 'The provider has no history endpoint.',
        unavailable: 'The provider is not configured on this gateway.',
      },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      example: {
        params: { connection_id: exampleConnection.id },
        body: { from: '2026-05-01T00:00:00Z', to: '2026-05-08T00:00:00Z' },
        response: { sync: exampleSync },
      },
      handle: ({ tx, orgId }, { params, body }) => syncs.create(tx, orgId, params.connection_id, body),
    }),
    defineRead({
      name: 'telematics_syncs_list',
      method: 'GET',
      path: '/v1/telematics/connections/:connection_id/syncs',
      scope: 'telematics:read',
      summary: "List a connection's syncs",
      description:
        "A connection's replay syncs, newest first, with their status and progress. Filter by `status`; pass " +
        '`next_cursor` back as `cursor` for the next page.',
      params: connectionParams,
      query: listSyncsQuery,
      output: z.object({ syncs: z.array(syncSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of syncs, newest first.',
      errors: { not_found: 'No connection with this id in your organisation.' },
      example: { params: { connection_id: exampleConnection.id }, query: { limit: '20' }, response: { syncs: [exampleSync], next_cursor: null } },
      handle: ({ db, orgId }, { params, query }) => syncs.list(db, orgId, params.connection_id, query),
    }),
    defineRead({
      name: 'telematics_syncs_get',
      method: 'GET',
      path: '/v1/telematics/connections/:connection_id/syncs/:sync_id',
      scope: 'telematics:read',
      summary: 'Get a sync',
      description: 'One replay sync of a connection (`syn_…`): status, window, progress (machines done of total, events queued), why it failed.',
      params: syncParams,
      output: z.object({ sync: syncSchema }),
      result: 'sync',
      status: 200,
      returns: 'the sync.',
      errors: { not_found: 'No connection with this id in your organisation, or no sync with this id of it.' },
      example: { params: { connection_id: exampleConnection.id, sync_id: exampleSync.id }, response: { sync: exampleSync } },
      handle: ({ db, orgId }, { params }) => syncs.get(db, orgId, params.connection_id, params.sync_id),
    }),
    defineWrite({
      name: 'telematics_syncs_cancel',
      method: 'POST',
      path: '/v1/telematics/connections/:connection_id/syncs/:sync_id/cancel',
      scope: 'telematics:write',
      summary: 'Cancel a sync',
      description:
        'Cancels a queued or running replay sync: it ends `cancelled` at once and its worker stops before writing another ' +
        'slice; what it queued for the hub so far stays queued. 409 when it already ended.',
      params: syncParams,
      output: z.object({ sync: syncSchema }),
      result: 'sync',
      status: 200,
      returns: 'the cancelled sync.',
      errors: {
        not_found: 'No connection with this id in your organisation, or no sync with this id of it.',
        invalid_transition: 'The sync already ended (completed, failed or cancelled).',
      },
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      example: {
        params: { connection_id: exampleConnection.id, sync_id: exampleSync.id },
        response: { sync: { ...exampleSync, status: 'cancelled', finished_at: '2026-06-01T12:03:00.000Z' } },
      },
      handle: ({ tx, orgId }, { params }) => syncs.cancel(tx, orgId, params.connection_id, params.sync_id),
    }),
    defineWrite({
      name: 'telematics_connections_disconnect',
      method: 'DELETE',
      path: '/v1/telematics/connections/:connection_id',
      scope: 'telematics:write',
      summary: 'Disconnect a telematics connection',
      description:
        'Unlinks the telematics account: polling stops (a poll in flight writes nothing more), the stored credentials, ' +
        'OAuth tokens and any pending consent are erased, and the hub is sent `telematics.connection.disconnected`. The ' +
        'connection stays, as `disconnected`, for the record; it cannot be reconnected (link the account anew with a new ' +
        'connect token). Disconnecting it again answers it as it is.',
      params: connectionParams,
      output: z.object({ connection: connectionSchema }),
      result: 'connection',
      status: 200,
      returns: 'the connection, disconnected.',
      errors: { not_found: 'No connection with this id in your organisation.' },
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      example: {
        params: { connection_id: exampleConnection.id },
        response: { connection: { ...exampleConnection, status: 'disconnected', next_poll_at: null } },
      },
      handle: ({ tx, orgId }, { params }) => connections.disconnect(tx, orgId, params.connection_id),
    }),
    defineSteps({
      name: 'telematics_connect',
      method: 'POST',
      path: '/connect',
      scope: DOOR_SCOPE.public,
      audience: 'public',
      perIpPerMinute: CONNECT_PER_IP_PER_MINUTE,
      maxBodyBytes: CONNECT_MAX_BODY_BYTES,
      summary: 'Link a telematics account with a connect token',
      description:
        "A fleet owner's connect page posts the `ct_…` token the hub issued, the provider and the account's credentials. " +
        'The token is checked first (unknown 404, used 409, expired 410), then the provider, then the credentials with ' +
        'the vendor; only when all pass is the token spent and the connection created. A refusal by the vendor (422) or ' +
        'a vendor outage (502/504) leaves the token usable. For the OAuth-consent providers the answer says where to send ' +
        'the fleet owner next (`next_step`).',
      body: connectBody,
      output: connectOutput,
      status: 200,
      returns: 'the new connection and, for the OAuth-consent providers, the consent step.',
      errors: {
        not_found: 'No such connect token.',
        token_used: 'The connect token was already used.',
        token_expired: 'The connect token expired (tokens live 15 minutes).',
        provider_not_connectable: 'The provider cannot be connected through the gateway (a stub: contact the vendor); the token stays usable.',
        credentials_rejected: 'The vendor refused the credentials; the message says what to fix and the token stays usable.',
        vendor_unreachable: 'The vendor could not be reached (refused connection, unknown host).',
        vendor_error: 'The vendor answered with an error status (`details.status`); the token stays usable.',
        vendor_document_invalid: 'The vendor answered with a document that cannot be read (`details.path`, `details.reason`).',
        upstream_timeout: 'The vendor did not answer in time; the token stays usable.',
        unavailable: 'The provider is not configured on this gateway.',
      },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      absent: { mcp: 'a public endpoint for a fleet owner\'s browser, authorised by a connect token rather than an API key' },
      example: {
        body: { connect_token: 'ct_3q9v6t5r4p2n1b0a8d7k3q9v6t5r4p2n', provider: 'vendor1_livelink', credentials: { username: 'fleet@acme.example', password: 's3cret' }, label: 'North yard' },
        response: { connection_id: exampleConnection.id, provider: 'vendor1_livelink' },
      },
      handle: (_ctx, { body }) => connect.connect(body),
    }),
    defineSteps({
      name: 'connect_tokens_create',
      method: 'POST',
      path: '/admin/v1/connect-tokens',
      scope: DOOR_SCOPE.operator,
      audience: 'operator',
      summary: 'Issue a connect token',
      description:
        'The hub issues a single-use connect token (15 minutes) for one organisation, optionally fixed to a provider, and ' +
        'hands it to the fleet owner\'s connect page. The token is shown once; only its SHA-256 hash is stored. With ' +
        '`connection` (a `con_…` id of the org, e.g. one in reauth_required) the token reconnects that connection: it is ' +
        "fixed to the connection's provider, and POST /connect replaces the credentials (or starts a new OAuth consent) on " +
        'the same id, keeping its marks.',
      body: issueTokenBody,
      output: issuedTokenSchema,
      status: 201,
      returns: 'the token, shown this once.',
      errors: {
        not_found: 'No organisation with this slug, or no connection with this id in it.',
        invalid_input: 'An unknown or stub provider, or a provider other than the connection\'s.',
        connection_not_active: 'The connection to reconnect was disconnected.',
        provider_not_connectable: 'The provider cannot be connected through the gateway (a stub: contact the vendor).',
        secret_shown_once: 'A retry with the same Idempotency-Key: the token was shown once, in the first answer (`details.expires_at`: when it lapses unused).',
      },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      absent: { mcp: OPERATOR_NOT_A_TOOL },
      example: {
        body: { org: 'acme', provider: 'vendor1_livelink', label: 'North yard' },
        response: { connect_token: 'ct_3q9v6t5r4p2n1b0a8d7k3q9v6t5r4p2n', expires_at: '2026-06-01T12:15:00.000Z', org: 'acme', provider: 'vendor1_livelink', label: 'North yard', connection: null },
      },
      // A connect token has no id: the lost one lapses unused at its expiry.
      shownOnce: ({ org, expires_at }) => ({ created: `a connect token for ${org}`, details: { expires_at }, instead: 'issue another with a new Idempotency-Key (the lost one lapses unused at its expiry)' }),
      handle: ({ auth, settle }, { body }) => connectTokens.issue(body, actorOf(auth), settle),
    }),
    defineSteps({
      name: 'telematics_connections_reset_cursors',
      method: 'POST',
      path: '/admin/v1/telematics/connections/:connection_id/reset-cursors',
      scope: DOOR_SCOPE.operator,
      audience: 'operator',
      summary: 'Reset a telematics connection\'s cursors',
      description:
        "Forgets every mark of the connection (per machine and data element), so its next poll sends everything the vendor " +
        'returns again; the hub drops the events it already has by their ids. For a connection whose marks went wrong. ' +
        'Recorded on the audit trail. 409 while a poll of it runs (try again when it ends). Reconnecting keeps the marks.',
      params: connectionParams,
      body: resetCursorsBody,
      output: z.object({ connection: connectionSchema }),
      result: 'connection',
      status: 200,
      returns: 'the connection, its cursors empty.',
      errors: {
        not_found: 'No organisation with this slug, or no connection with this id in it.',
        concurrent_change: 'A poll of the connection is running.',
      },
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      absent: { mcp: OPERATOR_NOT_A_TOOL },
      example: {
        params: { connection_id: exampleConnection.id },
        body: { org: 'acme' },
        response: { connection: { ...exampleConnection, cursors: { snapshot_at: null, machines: 0, oldest_mark: null, newest_mark: null } } },
      },
      handle: async ({ auth, settle }, { params, body }) => connections.resetCursors(params.connection_id, actorOf(auth), (await orgs.bySlug(body.org)).id, settle),
    }),
  ];
}
