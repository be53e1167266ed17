import type { ModuleDefinition } from '../../platform/module-definition.js';
import { onHubEventsQueued } from '../../platform/outbox/outbox.js';
import { webhookDocs } from './event-docs.js';
import { fanOut } from './fan-out.js';
import * as m0028 from './migrations/0031_webhooks.js';
import { TargetPolicy } from './safe-target.js';
import { WebhookSender } from './webhook-sender.js';
import { webhooksOperations } from './webhooks.operations.js';
import { WebhooksService } from './webhooks.service.js';
import { webhooksSettings } from './webhooks.settings.js';
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
  services: ({ config, db, clock, vault, delivery, services }) => {
    const settings = webhooksSettings(config.environment);
    const policy = new TargetPolicy(settings.WEBHOOK_ALLOWED_HOSTS);
    // Every hub event of the catalog's kinds fans out to the org's endpoints in the transaction that queued it.
    onHubEventsQueued(db, fanOut);
    delivery.addSender(new WebhookSender(db, clock, vault, policy, settings));
    return { webhooks: new WebhooksService(clock, services.deliveries, vault, policy, settings) };
  },
  operations: (services) => webhooksOperations(services.webhooks),
  webhooks: webhookDocs('webhooks'),
  migrations: { '0031_webhooks': m0028 },
  encryptedColumns: [
    { table: 'webhook_endpoints', idColumn: 'id', column: 'secret_ciphertext' },
    { table: 'webhook_endpoints', idColumn: 'id', column: 'previous_secret_ciphertext' },
  ],
};
