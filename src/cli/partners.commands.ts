import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { DEFAULT_SKU_QUALIFIERS, type PartnerView } from '../modules/edi/partners.service.js';
import { print, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

interface CreateOptions extends OutputOptions {
  org: string;
  name: string;
  isa: string;
  gs?: string;
  ourIsa?: string;
  outboundUrl?: string;
  skuQualifiers?: string;
}

function describe(p: PartnerView): string {
  return [
    `partner ${p.name} (${p.id}) of org ${p.org}`,
    `sends as:        ${p.isa}${p.gs === null ? '' : ` (GS ${p.gs})`}`,
    `sends to (ours): ${p.our_isa ?? '(not set)'}`,
    `outbound URL:    ${p.outbound_url ?? '(none: documents are kept and sent to the hub only)'}`,
    `SKU qualifiers:  ${p.sku_qualifiers.join(',')}`,
  ].join('\n');
}

/** `partners create|list|show`: an org's EDI trading partners and its own interchange id. */
export function registerPartnersCommands(program: Command, withGateway: WithGateway): void {
  const partners = program.command('partners').description('EDI trading partners');
  partners
    .command('create')
    .description("add a trading partner; --our-isa sets the org's own interchange id (required for the first partner)")
    .requiredOption('--org <slug>', 'org the partner trades with')
    .requiredOption('--name <name>', 'partner name, unique in the org')
    .requiredOption('--isa <qualifier/id>', 'the ISA05/ISA06 the partner sends from, e.g. ZZ/BUYERCO')
    .option('--gs <id>', "the partner's GS application code (GS03 of what we send); defaults to its ISA id")
    .option('--our-isa <qualifier/id>', "the org's own ISA07/ISA08, e.g. ZZ/TIREGATEWAY")
    .option('--outbound-url <url>', 'where 855/856/810 documents are POSTed (text/plain)')
    .option('--sku-qualifiers <list>', 'PO1 product id qualifiers to read the SKU from, in order', DEFAULT_SKU_QUALIFIERS.join(','))
    .option('--json', 'machine-readable output')
    .action(run(async (opts: CreateOptions) => {
      const created = await withGateway((gw) =>
        gw.services.ediPartners.create({
          org: opts.org,
          name: opts.name,
          isa: opts.isa,
          ...(opts.gs === undefined ? {} : { gs: opts.gs }),
          ...(opts.ourIsa === undefined ? {} : { ourIsa: opts.ourIsa }),
          ...(opts.outboundUrl === undefined ? {} : { outboundUrl: opts.outboundUrl }),
          ...(opts.skuQualifiers === undefined ? {} : { skuQualifiers: opts.skuQualifiers }),
        }),
      );
      print(opts, created, (p) => `created ${describe(p)}`);
    }));
  partners
    .command('list')
    .requiredOption('--org <slug>', 'org whose partners to list')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string }) => {
      const list = await withGateway((gw) => gw.services.ediPartners.list(opts.org));
      print(opts, list, (l) =>
        table(l.map((p) => ({ ...p, sku_qualifiers: p.sku_qualifiers.join(',') })), ['name', 'id', 'isa', 'gs', 'outbound_url', 'sku_qualifiers']),
      );
    }));
  partners
    .command('show <idOrName>')
    .requiredOption('--org <slug>', 'org the partner belongs to')
    .option('--json', 'machine-readable output')
    .action(run(async (ref: string, opts: OutputOptions & { org: string }) => {
      const partner = await withGateway((gw) => gw.services.ediPartners.show(opts.org, ref));
      print(opts, partner, describe);
    }));
}
