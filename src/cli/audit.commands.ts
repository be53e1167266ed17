import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { invalidInput } from '../platform/core/errors.js';
import { printList, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** `audit list`: the append-only trail of operator actions (the same as GET /admin/v1/audit). */
export function registerAuditCommands(program: Command, withGateway: WithGateway): void {
  const audit = program.command('audit');
  audit
    .command('list')
    .description('list audit events, newest first')
    .option('--org <slug>', "only this organisation's events")
    .option('--limit <n>', 'events to show, 1-500', '50')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org?: string; limit: string }) => {
      const [{ listAuditQuery }, { decimalNumber }] = await Promise.all([import('../platform/audit/audit.schemas.js'), import('../platform/operations/query-string.js')]);
      // Checked before the database is opened, so a typo costs nothing.
      const query = listAuditQuery.safeParse({ limit: decimalNumber(opts.limit) ?? opts.limit, ...(opts.org === undefined ? {} : { org: opts.org }) });
      if (!query.success) throw invalidInput('--limit must be a whole number from 1 to 500');
      const listed = await withGateway(async (gw) => gw.services.audit.list(query.data, await gw.services.orgs.idFilter(query.data.org)));
      printList(opts, 'events', listed.events, (l) => table(l, ['at', 'actor', 'action', 'target', 'org', 'request_id']));
    }));
}
