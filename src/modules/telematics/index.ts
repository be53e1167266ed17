import type { ModuleDefinition } from '../../platform/module-definition.js';
import { YieldToRequests } from '../../platform/core/yield-to-requests.js';
import { ConnectService, OAUTH_CALLBACK_PATH } from './connect/connect.service.js';
import { ConnectTokensService } from './connect/connect-tokens.service.js';
import { ConnectionsService } from './connections/connections.service.js';
import * as m0008 from './migrations/0008_telematics.js';
import * as m0010 from './migrations/0010_telematics_connections.js';
import * as m0012 from './migrations/0012_telematics_polling.js';
import * as m0013 from './migrations/0013_telematics_reconnect.js';
import * as m0017 from './migrations/0017_telematics_endpoints.js';
import * as m0018 from './migrations/0018_telematics_marks.js';
import * as m0019 from './migrations/0019_telematics_syncs.js';
import * as m0029 from './migrations/0029_telematics_sync_order.js';
import { OAuthConsentService } from './connect/oauth-consent.service.js';
import { PollService, TELEMATICS_EVENT } from './polling/poll.service.js';
import { keepHubRejections } from './connections/hub-rejections.js';
import { TelematicsPoller } from './polling/poller.js';
import { SyncWorker } from './polling/sync-worker.js';
import { SyncService } from './polling/syncs.service.js';
import { VendorRateGate } from './polling/rate-gate.js';
import { futureSkews, telematicsSettings } from './telematics.settings.js';
import { ProviderEndpoints } from './providers/endpoints.js';
import { telematicsOperations } from './telematics.operations.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './telematics.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    connectTokens: ConnectTokensService;
    connections: ConnectionsService;
    connect: ConnectService;
    oauthConsent: OAuthConsentService;
    polling: PollService;
    poller: TelematicsPoller;
    syncs: SyncService;
    syncWorker: SyncWorker;
  }
}

/**
 * Telematics: fleets link their equipment's telematics accounts (connect tokens, POST /connect, 21 providers, OAuth
 * consent for the OEM providers) and the gateway polls them.
 */
export const telematicsModule: ModuleDefinition = {
  name: 'telematics',
  scopes: { 'telematics:read': 'read telematics connections', 'telematics:write': 'poll a connection now, replay a window as a background sync and cancel it, disconnect' },
  tag: { name: 'telematics', description: 'Linked telematics accounts: the public connect endpoint, connect tokens and connection reads.' },
  services: ({ config, db, dialect, clock, vault, delivery, limiter, load, log, services: { orgs } }) => {
    delivery.onRejected(TELEMATICS_EVENT, (rejections) => keepHubRejections(db, rejections));
    const settings = telematicsSettings(config.environment);
    const endpoints = new ProviderEndpoints(settings, config.environment);
    const publicUrl = (config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/+$/, '');
    const gate = new VendorRateGate(limiter);
    const connect = new ConnectService(db, clock, vault, endpoints, publicUrl, gate);
    const oauthConsent = new OAuthConsentService(db, clock, vault, endpoints, connect.callbackUrl);
    // Scheduled polls yield in a budget of their own: one round runs at a time per budget, so sharing the sync's would
    // have a long replay hold the fleets' regular polls back, and a poll keeps data fresh where a replay backfills.
    const pollYields = new YieldToRequests(load, clock, settings.POLL_SHARE_WHEN_BUSY);
    const polling = new PollService(db, clock, vault, endpoints, oauthConsent, gate, settings.POLL_LEASE_MS, futureSkews(settings, config.environment), pollYields);
    // Its own budget, not the webhooks': one round at a time per budget, so a shared one would have a long replay hold
    // partners' webhooks back (and the reverse), and a backfill may take another share than webhooks.
    const syncYields = new YieldToRequests(load, clock, settings.SYNC_SHARE_WHEN_BUSY);
    const syncs = new SyncService(db, clock, endpoints, polling, { leaseMs: settings.SYNC_LEASE_MS, maxAttempts: settings.SYNC_MAX_ATTEMPTS, yields: syncYields });
    return {
      connectTokens: new ConnectTokensService(db, clock, orgs),
      connections: new ConnectionsService(db, clock, endpoints),
      connect,
      oauthConsent,
      polling,
      poller: new TelematicsPoller(db, dialect, clock, polling, {
        concurrency: settings.POLLER_CONCURRENCY,
        perProvider: settings.POLLER_PER_PROVIDER,
        idleMs: settings.POLLER_IDLE_MS,
        log,
      }),
      syncs,
      syncWorker: new SyncWorker(db, dialect, clock, syncs, {
        concurrency: settings.SYNC_CONCURRENCY,
        slicesPerClaim: settings.SYNC_SLICES_PER_CLAIM,
        idleMs: settings.SYNC_IDLE_MS,
        log,
      }),
    };
  },
  operations: (services) => telematicsOperations(services),
  workers: ({ poller, syncWorker }) => [poller, syncWorker],
  pages: ({ oauthConsent }) => [
    {
      path: OAUTH_CALLBACK_PATH,
      summary: 'OAuth consent callback',
      description:
        "Where an OEM provider sends the fleet owner's browser back after consent: exchanges the code for tokens, makes " +
        'the connection active and shows a page saying so, or why not (unknown or used link, declined, expired).',
      query: { state: 'The state the gateway put in the authorize link.', code: 'The authorization code.', error: 'The vendor\'s error (`access_denied`).' },
      outcomes: {
        200: 'Connected.',
        400: 'The link is unknown or was used, no code came, or the vendor refused the code.',
        403: 'The fleet owner declined consent.',
        410: 'The time to consent ran out; the connection is consent_expired.',
        502: 'The vendor could not be reached.',
        503: 'The provider is no longer configured.',
      },
      render: (query) => oauthConsent.complete(query),
    },
  ],
  migrations: { '0008_telematics': m0008, '0010_telematics_connections': m0010, '0012_telematics_polling': m0012, '0013_telematics_reconnect': m0013, '0017_telematics_endpoints': m0017, '0018_telematics_marks': m0018, '0019_telematics_syncs': m0019, '0029_telematics_sync_order': m0029 },
  encryptedColumns: [
    { table: 'telematics_connections', idColumn: 'id', column: 'credentials_ciphertext' },
    { table: 'telematics_connections', idColumn: 'id', column: 'oauth_tokens_ciphertext' },
    { table: 'telematics_connections', idColumn: 'id', column: 'consent_verifier_ciphertext' },
    { table: 'telematics_connections', idColumn: 'id', column: 'vendor_token_ciphertext' },
  ],
};
