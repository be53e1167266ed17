import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Gateway } from '../gateway.js';
import { invalidInput } from '../platform/core/errors.js';
import { OUTBOX_STATUSES, type OutboxStatus } from '../platform/outbox/outbox.tables.js';
import { print, printList, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

function limitOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('expected a whole number from 1 to 10000');
  return n;
}

/** `deliveries list|retry`: what waits in the outbox, what the hub rejected, and sending it again. */
export function registerDeliveriesCommands(program: Command, withGateway: WithGateway): void {
  const deliveries = program.command('deliveries');
  deliveries
    .command('list')
    .description('newest first; queued = waiting or being retried, rejected = refused by the hub, needs a retry')
    .addOption(new Option('--status <status>', 'only deliveries in this status').choices(OUTBOX_STATUSES))
    .option('--org <slug>', 'only this org')
    .option('--limit <n>', 'at most this many', limitOf, 50)
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { status?: OutboxStatus; org?: string; limit: number }) => {
      const list = await withGateway((gw) =>
        gw.services.deliveries.list({
          limit: opts.limit,
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.org ? { orgSlug: opts.org } : {}),
        }),
      );
      printList(opts, 'deliveries', list, (l) =>
        table(l as unknown as Record<string, unknown>[], ['id', 'type', 'status', 'attempts', 'next_attempt_at', 'last_error', 'created_at']),
      );
    }));
  deliveries
    .command('retry [id]')
    .description('make a rejected (or waiting) delivery due now, or every rejected one with --all-rejected')
    .option('--all-rejected', 'retry every rejected delivery')
    .option('--org <slug>', 'with --all-rejected: only this org')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string | undefined, opts: OutputOptions & { allRejected?: boolean; org?: string }) => {
      if ((id === undefined) === (opts.allRejected !== true)) throw invalidInput('give a delivery id or --all-rejected (not both)');
      const result = await withGateway((gw) =>
        id === undefined ? gw.services.deliveries.retryAllRejected(opts.org) : gw.services.deliveries.retry(id),
      );
      print(opts, result, (r) => `${r.retried} ${r.retried === 1 ? 'delivery' : 'deliveries'} queued for delivery`);
    }));
}
