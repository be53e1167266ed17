import type { ModuleDefinition } from '../../platform/module-definition.js';
import { onHubEventsQueued } from '../../platform/outbox/outbox.js';
import { webhookDocs } from './event-docs.js';
import { FanOut } from './fan-out.js';
import { FanOutSender } from './fan-out-sender.js';
import { EventFanOut } from './event-fan-out.js';
import { YieldToRequests } from '../../platform/core/yield-to-requests.js';
import * as m0031 from './migrations/0031_webhooks.js';
import * as m0034 from './migrations/0034_webhooks_retention.js';
import * as m0043 from './migrations/0043_webhooks_delivery_event.js';
import * as m0047 from './migrations/0047_webhooks_event_fanout.js';
import { TargetPolicy } from './safe-target.js';
import { INLINE_WEBHOOK_DESTINATION, WEBHOOK_DESTINATION, WebhookSender } from './webhook-sender.js';
import { InlinePoster, ThreadPoster } from './webhook-poster.js';
import { webhooksOperations } from './webhooks.operations.js';
import { WebhooksService } from './webhooks.service.js';
import { purgeBefore } from './webhooks.repository.js';
import { checkLeaseOutlastsTimeout, webhooksSettings } from './webhooks.settings.js';
// Its table types, merged into the platform's Database: imported here so they are in every program that has the module.
import './webhooks.tables.js';

declare module '../../platform/module-definition.js' {
  interface Services {
    webhooks: WebhooksService;
  }
}

export const webhooksModule: ModuleDefinition = {
  name: 'webhooks',
  scopes: { 'webhooks:read': 'read webhook endpoints, their deliveries and the events API', 'webhooks:write': 'create, change and delete webhook endpoints, rotate their secrets, retry deliveries' },
  tag: {
    name: 'webhooks',
    description:
      "Webhooks to your systems, signed per the Standard Webhooks spec and retried through the outbox, and the events API: your organisation's events of the last 30 days.",
  },
  services: ({ config, db, dialect, clock, vault, delivery, load, services }) => {
    const settings = webhooksSettings(config.environment);
    checkLeaseOutlastsTimeout(settings, config.OUTBOX_LEASE_MS);
    const policy = new TargetPolicy(settings.WEBHOOK_ALLOWED_HOSTS);
    // Every hub event of the catalog's kinds is kept, naming the endpoints that subscribe to it, in the transaction that queued it.
    onHubEventsQueued(db, new FanOut(services.orgs, clock).listener);
    // One budget for all webhook work (fan-out and both destinations' sends): it yields to the requests this process answers.
    const yields = new YieldToRequests(load, clock, settings.WEBHOOK_SHARE_WHEN_BUSY);
    const limits = { timeoutMs: settings.WEBHOOK_TIMEOUT_MS, retryAfterMaxMs: settings.WEBHOOK_RETRY_AFTER_MAX_MS };
    // One poster (one thread, one keep-alive pool) for both destinations' senders.
    const poster = settings.WEBHOOK_SEND_THREAD === 'on' ? new ThreadPoster({ allowedHosts: settings.WEBHOOK_ALLOWED_HOSTS, ...limits }) : new InlinePoster(policy, limits);
    // The fan-out runs first in each drain round: the deliveries it queues go out in the same round.
    delivery.addStep(new EventFanOut(db, dialect, yields));
    // The fan-out rows a build before 0047 queues beside this one during a rolling upgrade, first among the senders.
    delivery.addSender(new FanOutSender(yields));
    for (const destination of [WEBHOOK_DESTINATION, INLINE_WEBHOOK_DESTINATION] as const) delivery.addSender(new WebhookSender(destination, db, clock, vault, poster, services.orgs, settings, yields));
    return { webhooks: new WebhooksService(clock, services.deliveries, services.orgs, vault, policy, settings) };
  },
  operations: (services) => webhooksOperations(services.webhooks),
  webhooks: webhookDocs('webhooks'),
  migrations: { '0031_webhooks': m0031, '0034_webhooks_retention': m0034, '0043_webhooks_delivery_event': m0043, '0047_webhooks_event_fanout': m0047 },
  // Events are listed for WEBHOOK_EVENTS_KEEP_MS (30 days); then they go, with their deliveries and attempts.
  retention: ({ config, database: { db, dialect } }) => {
    const keepMs = webhooksSettings(config.environment).WEBHOOK_EVENTS_KEEP_MS;
    return (['webhook_events', 'webhook_deliveries', 'webhook_attempts'] as const).map((table) => ({ name: table, keepMs, purge: (before: string, limit: number) => purgeBefore(db, dialect, table, before, limit) }));
  },
  encryptedColumns: [
    { table: 'webhook_endpoints', idColumn: 'id', column: 'secret_ciphertext' },
    { table: 'webhook_endpoints', idColumn: 'id', column: 'previous_secret_ciphertext' },
  ],
};
