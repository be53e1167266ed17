import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { print, printList, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** `webhooks list|deliveries|retry --org`: an org's webhook endpoints and deliveries, as the operator sees them. */
export function registerWebhooksCommands(program: Command, withGateway: WithGateway): void {
  const webhooks = program.command('webhooks');
  const orgIdOf = async (gw: Gateway, slug: string) => (await gw.services.orgs.bySlug(slug)).id;
  webhooks
    .command('list')
    .description("the org's endpoints, oldest first (why the gateway disabled one, if it did)")
    .requiredOption('--org <slug>', 'the org')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string }) => {
      const { endpoints } = await withGateway(async (gw) => gw.services.webhooks.list(gw.database.db, await orgIdOf(gw, opts.org), { limit: 100 }));
      printList(opts, 'endpoints', endpoints, (l) => table(l as unknown as Record<string, unknown>[], ['id', 'url', 'event_types', 'enabled', 'failing_since', 'disabled_reason']));
    }));
  webhooks
    .command('deliveries <endpoint_id>')
    .description("an endpoint's deliveries, newest first, with their last error and next attempt")
    .requiredOption('--org <slug>', 'the org')
    .option('--json', 'machine-readable output')
    .action(run(async (endpointId: string, opts: OutputOptions & { org: string }) => {
      const { deliveries } = await withGateway(async (gw) => gw.services.webhooks.deliveries(gw.database.db, await orgIdOf(gw, opts.org), endpointId, { limit: 100 }));
      printList(opts, 'deliveries', deliveries, (l) => table(l as unknown as Record<string, unknown>[], ['id', 'event_id', 'type', 'status', 'attempt_count', 'next_attempt_at', 'last_error']));
    }));
  webhooks
    .command('retry <endpoint_id> <delivery_id>')
    .description('send a failed (or waiting) delivery again now, with the same webhook-id')
    .requiredOption('--org <slug>', 'the org')
    .option('--json', 'machine-readable output')
    .action(run(async (endpointId: string, deliveryId: string, opts: OutputOptions & { org: string }) => {
      const delivery = await withGateway(async (gw) => {
        const orgId = await orgIdOf(gw, opts.org);
        return gw.database.db.transaction().execute((tx) => gw.services.webhooks.retry(tx, orgId, endpointId, deliveryId));
      });
      print(opts, delivery, (d) => `delivery ${d.id} queued again (${d.type}, webhook-id ${d.event_id})`);
    }));
}
