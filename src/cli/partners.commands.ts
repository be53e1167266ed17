import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { DEFAULT_SKU_QUALIFIERS, REQUIRABLE, VALIDATION_LEVELS } from '../modules/edi/partners/partners.constants.js';
import type { PartnerProfileInput, PartnerView } from '../modules/edi/partners/partners.service.js';
import { print, printList, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

interface ProfileOptions {
  shipFrom?: string;
  shipFromId?: string;
  shipFromAddress?: string;
  remitTo?: string;
  remitToId?: string;
  remitToAddress?: string;
  billTo?: string;
  billToId?: string;
  billToAddress?: string;
  vendorNumber?: string;
  scac?: string;
  leadDays?: string;
  terms?: string;
  packaging?: string;
  require?: string;
  require855?: string;
  require856?: string;
  require810?: string;
  validation?: string;
}

interface CreateOptions extends OutputOptions, ProfileOptions {
  org: string;
  name: string;
  isa: string;
  gs?: string;
  ourIsa?: string;
  outboundUrl?: string;
  skuQualifiers?: string;
}

const PROFILE_FLAGS: (keyof ProfileOptions)[] = [
  'shipFrom', 'shipFromId', 'shipFromAddress', 'remitTo', 'remitToId', 'remitToAddress', 'billTo', 'billToId', 'billToAddress',
  'vendorNumber', 'scac', 'leadDays', 'terms', 'packaging', 'require', 'require855', 'require856', 'require810', 'validation',
];

/** The profile flags that were given (commander leaves the others undefined). */
function profileInput(opts: ProfileOptions): PartnerProfileInput {
  return Object.fromEntries(PROFILE_FLAGS.flatMap((flag) => (opts[flag] === undefined ? [] : [[flag, opts[flag]]])));
}

/** The flags of what a partner's guide asks of our 855/856/810. */
function withProfileFlags(command: Command): Command {
  return command
    .option('--ship-from <name>', "the 856's ship-from (N1*SF): our warehouse's name")
    .option('--ship-from-id <qualifier/id>', 'its N103/N104 as the partner knows it, e.g. 92/WH-1 or 1/123456789 (DUNS)')
    .option('--ship-from-address <address>', 'its address: "street;city;state;postal code;country"')
    .option('--remit-to <name>', "the 810's remit-to (N1*RE): who gets paid")
    .option('--remit-to-id <qualifier/id>', 'its N103/N104, e.g. 1/123456789')
    .option('--remit-to-address <address>', 'its address: "street;city;state;postal code;country"')
    .option('--bill-to <name>', "the 810's bill-to (N1*BT) when the 850 names none")
    .option('--bill-to-id <qualifier/id>', 'its N103/N104, e.g. 92/AP-1')
    .option('--bill-to-address <address>', 'its address: "street;city;state;postal code;country"')
    .option('--vendor-number <id>', 'our vendor number at the partner (REF*IA of the 855, 856 and 810)')
    .option('--scac <code>', 'carrier SCAC for TD5/CAD when a shipment names none (2-4 capital letters)')
    .option('--lead-days <days>', "days from acknowledgment to shipping: the 855's schedule date when the 850 asks no ship date (0-365)")
    .option('--terms <terms>', "the 810's ITD terms: <net days> (30) or <discount %>/<discount days>/<net days> (2/10/30)")
    .option('--packaging <code>', 'TD101 packaging code of the 856 (CTN25 cartons, PLT94 pallets); default CTN25')
    .option('--require-855 <list>', `855 segments the partner requires, comma-separated: ${REQUIRABLE['855'].join(', ')}`)
    .option('--require-856 <list>', `856 segments the partner requires, comma-separated: ${REQUIRABLE['856'].join(', ')}`)
    .option('--require-810 <list>', `810 segments the partner requires, comma-separated: ${REQUIRABLE['810'].join(', ')}`)
    .option('--require <list>', 'the former name of --require-856')
    .option('--validation <level>', `how strictly the partner's interchanges are checked: ${VALIDATION_LEVELS.join(' or ')} (default strict)`);
}

function describeDocuments(p: PartnerView): string[] {
  const documents = p.documents;
  const party = (x: typeof documents.ship_from): string =>
    x === undefined ? '(none)' : [x.name, x.id === undefined ? '' : `${x.id_qualifier ?? ''}/${x.id}`, [...(x.street ?? []), x.city, x.state, x.postal, x.country].filter(Boolean).join(', ')].filter(Boolean).join(' | ');
  const paymentTerms = documents.terms;
  const terms = paymentTerms === undefined ? '(none)' : `${paymentTerms.discount_percent === undefined ? '' : `${paymentTerms.discount_percent}% ${paymentTerms.discount_days ?? ''} days, `}net ${paymentTerms.net_days}`;
  const required = (doc: '855' | '856' | '810'): string => (documents.require?.[doc] ?? []).join(',') || '(nothing beyond the basics)';
  return [
    `ship-from (856):  ${party(documents.ship_from)}`,
    `remit-to (810):   ${party(documents.remit_to)}`,
    `bill-to (810):    ${party(documents.bill_to)}`,
    `vendor number:    ${documents.vendor_number ?? '(none)'}`,
    `default SCAC:     ${documents.scac ?? '(none: TD5/CAD only from the shipment)'}`,
    `lead days (855):  ${documents.lead_days ?? '(none)'}`,
    `terms (810 ITD):  ${terms}`,
    `855 requires:     ${required('855')}`,
    `856 requires:     ${required('856')}`,
    `810 requires:     ${required('810')}`,
    `inbound checks:   ${p.validation}`,
  ];
}

function describe(p: PartnerView): string {
  return [
    `partner ${p.name} (${p.id}) of org ${p.org}`,
    `sends as:        ${p.isa}${p.gs === null ? '' : ` (GS ${p.gs})`}`,
    `sends to (ours): ${p.our_isa ?? '(not set)'}`,
    `outbound URL:    ${p.outbound_url ?? '(none: documents are kept and sent to the hub only)'}`,
    `SKU qualifiers:  ${p.sku_qualifiers.join(',')}`,
    ...describeDocuments(p),
  ].join('\n');
}

/** `partners create|list|show`: an org's EDI trading partners and its own interchange id. */
export function registerPartnersCommands(program: Command, withGateway: WithGateway): void {
  const partners = program.command('partners');
  withProfileFlags(partners
    .command('create'))
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
          ...profileInput(opts),
        }),
      );
      print(opts, created, (p) => `created ${describe(p)}`);
    }));
  withProfileFlags(
    partners
      .command('profile <idOrName>')
      .description("change what the partner's guide asks of our 855/856/810; flags left out keep their value")
      .requiredOption('--org <slug>', 'org the partner belongs to'),
  )
    .option('--json', 'machine-readable output')
    .action(run(async (ref: string, opts: OutputOptions & ProfileOptions & { org: string }) => {
      const partner = await withGateway((gw) => gw.services.ediPartners.setProfile(opts.org, ref, profileInput(opts)));
      print(opts, partner, (p) => `updated ${describe(p)}`);
    }));
  partners
    .command('list')
    .description("list an org's trading partners")
    .requiredOption('--org <slug>', 'org whose partners to list')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string }) => {
      const list = await withGateway((gw) => gw.services.ediPartners.list(opts.org));
      printList(opts, 'partners', list, (l) =>
        table(l.map((p) => ({ ...p, sku_qualifiers: p.sku_qualifiers.join(',') })), ['name', 'id', 'isa', 'gs', 'outbound_url', 'sku_qualifiers']),
      );
    }));
  const ourIds = partners.command('our-ids').description("the interchange ids (ISA07/ISA08) partners may address the org under");
  ourIds
    .command('add')
    .description('add an interchange id the org also receives under; 997s and TA1s answer from the id the partner addressed')
    .requiredOption('--org <slug>', 'the org')
    .requiredOption('--isa <qualifier/id>', 'the further ISA07/ISA08, e.g. ZZ/OTHERID')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string; isa: string }) => {
      const added = await withGateway((gw) => gw.services.ediPartners.addInterchangeId(opts.org, opts.isa));
      print(opts, added, (v) => `added interchange id ${v.isa} to org ${v.org}`);
    }));
  ourIds
    .command('list')
    .description("the org's interchange ids, its main one first")
    .requiredOption('--org <slug>', 'the org')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string }) => {
      const list = await withGateway((gw) => gw.services.ediPartners.listInterchangeIds(opts.org));
      printList(opts, 'interchange_ids', list, (l) => table(l.map((v) => ({ ...v, main: v.main ? 'yes' : '' })), ['isa', 'main', 'created_at']));
    }));
  partners
    .command('show <idOrName>')
    .description('one partner: its ids, outbound URL and profile')
    .requiredOption('--org <slug>', 'org the partner belongs to')
    .option('--json', 'machine-readable output')
    .action(run(async (ref: string, opts: OutputOptions & { org: string }) => {
      const partner = await withGateway((gw) => gw.services.ediPartners.show(opts.org, ref));
      print(opts, partner, describe);
    }));
}
