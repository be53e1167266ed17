import { z } from 'zod';
import type { Clock } from '../../../platform/core/clock.js';
import type { Db, Executor, Tx } from '../../../platform/db/schema.js';
import { AppError, invalidInput, notFound } from '../../../platform/core/errors.js';
import { newId } from '../../../platform/core/ids.js';
import { invalidFromMessages } from '../../../platform/core/issues.js';
import type { OrgsService } from '../../../platform/orgs/orgs.service.js';
import { decodeCursor, page } from '../../../platform/core/pagination.js';
import {
  type DocumentProfile,
  type ListPartnersQuery,
  type OurInterchangeId,
  type PartnerApiView,
  documentProfileSchema,
  type Party,
  REQUIRABLE,
  REQUIRING_DOCUMENTS,
  type RequiredSegments,
  type RequiringDocument,
  VALIDATION_LEVELS,
  type ValidationLevel,
} from './partners.schemas.js';
import * as repo from './partners.repository.js';
import { DEFAULT_SKU_QUALIFIERS } from './partners.constants.js';

export { DEFAULT_SKU_QUALIFIERS } from './partners.constants.js';

// Letters, digits and a few marks: an id has to survive any delimiter choice and fixed-width ISA padding.
const ISA_ID = /^[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,13}[A-Za-z0-9._-])?$/;
const QUALIFIER = /^[A-Z0-9]{2}$/;

const isaSchema = (flag: string) =>
  z.string().transform((value, ctx) => {
    const slash = value.indexOf('/');
    const qualifier = value.slice(0, slash);
    const id = value.slice(slash + 1);
    if (slash === -1 || !QUALIFIER.test(qualifier) || !ISA_ID.test(id)) {
      ctx.addIssue({ code: 'custom', message: `${flag} must be <qualifier>/<id>: a 2-character qualifier (ZZ, 01, 12, ...) and an id of 1-15 letters or digits` });
      return z.NEVER;
    }
    return { qualifier, id };
  });

// N102 is AN 1/60, N104 AN 2/80; letters, digits and a few marks keep them clear of any delimiter choice.
const PARTY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{1,79}$/;
const X12_TEXT = /^[A-Za-z0-9 .,&'#()/-]*$/;

const partyName = (flag: string) => z.string().trim().min(1, `${flag} must not be empty`).max(60, `${flag} is at most 60 characters`).regex(X12_TEXT, `${flag} may hold letters, digits, spaces and . , & ' # ( ) / -`);
const partyId = (flag: string) =>
  z.string().transform((value, ctx) => {
    const slash = value.indexOf('/');
    const qualifier = value.slice(0, slash);
    const id = value.slice(slash + 1);
    if (slash === -1 || !/^[A-Z0-9]{1,2}$/.test(qualifier) || !PARTY_ID.test(id)) {
      ctx.addIssue({ code: 'custom', message: `${flag} must be <qualifier>/<id>: an N103 code (92 assigned by buyer, 1 DUNS, ...) and an id of 2-80 letters or digits` });
      return z.NEVER;
    }
    return { id_qualifier: qualifier, id };
  });
const partyAddress = (flag: string) =>
  z.string().transform((value, ctx) => {
    const [street = '', city = '', state = '', postal = '', country = '', ...rest] = value.split(';').map((p) => p.trim());
    const parts = [street, city, state, postal, country];
    if (rest.length > 0 || parts.some((p) => !X12_TEXT.test(p) || p.length > 55) || street === '') {
      ctx.addIssue({ code: 'custom', message: `${flag} must be "street;city;state;postal code;country", each up to 55 letters, digits or spaces` });
      return z.NEVER;
    }
    return { street: [street], ...Object.fromEntries(Object.entries({ city, state, postal, country }).filter(([, v]) => v !== '')) };
  });

/** `30` (net 30) or `2/10/30` (2 % off within 10 days, net 30). */
const termsSchema = z.string().transform((value, ctx) => {
  const m = /^(?:(\d{1,2}(?:\.\d{1,2})?)\/(\d{1,3})\/)?(\d{1,3})$/.exec(value.trim());
  if (m === null) {
    ctx.addIssue({ code: 'custom', message: '--terms must be <net days> (30) or <discount %>/<discount days>/<net days> (2/10/30)' });
    return z.NEVER;
  }
  const [, percent, days, net] = m;
  return { net_days: Number(net), ...(percent === undefined || days === undefined ? {} : { discount_percent: percent, discount_days: Number(days) }) };
});

/** A comma-separated list of the segments `doc` can require; an empty list clears it. */
const requireList = <D extends RequiringDocument>(doc: D, flag: string) =>
  z
    .string()
    .transform((v) => v.split(',').map((q) => q.trim().toUpperCase()).filter(Boolean))
    .refine((list) => list.every((code) => (REQUIRABLE[doc] as readonly string[]).includes(code)), `${flag} takes a comma-separated list of ${REQUIRABLE[doc].join(', ')}`)
    .transform((list) => [...new Set(list)] as NonNullable<RequiredSegments[D]>);

const profileInput = z.object({
  shipFrom: partyName('--ship-from').optional(),
  shipFromId: partyId('--ship-from-id').optional(),
  shipFromAddress: partyAddress('--ship-from-address').optional(),
  remitTo: partyName('--remit-to').optional(),
  remitToId: partyId('--remit-to-id').optional(),
  remitToAddress: partyAddress('--remit-to-address').optional(),
  billTo: partyName('--bill-to').optional(),
  billToId: partyId('--bill-to-id').optional(),
  billToAddress: partyAddress('--bill-to-address').optional(),
  // REF02 is AN 1/30 in 004010.
  vendorNumber: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,29}$/, '--vendor-number must be 1-30 letters or digits (and . _ -)').optional(),
  scac: z.string().regex(/^[A-Z]{2,4}$/, '--scac must be a SCAC: 2-4 capital letters (e.g. UPSN, FDEG)').optional(),
  leadDays: z
    .string()
    .regex(/^\d{1,3}$/, '--lead-days must be a whole number of days from 0 to 365')
    .transform(Number)
    .refine((n) => n <= 365, '--lead-days must be a whole number of days from 0 to 365')
    .optional(),
  terms: termsSchema.optional(),
  packaging: z.string().regex(/^[A-Z0-9]{3}[0-9]{2}$/, '--packaging must be a TD101 code: 3 letters and 2 digits (CTN25, PLT94)').optional(),
  /** The spelling before --require-856 (when only the 856 could require segments). */
  require: requireList('856', '--require').optional(),
  require855: requireList('855', '--require-855').optional(),
  require856: requireList('856', '--require-856').optional(),
  require810: requireList('810', '--require-810').optional(),
  validation: z
    .string()
    .refine((v): v is ValidationLevel => (VALIDATION_LEVELS as readonly string[]).includes(v), `--validation must be ${VALIDATION_LEVELS.join(' or ')}`)
    .optional(),
});
export type PartnerProfileInput = z.input<typeof profileInput>;

function party(name: string | undefined, id: { id_qualifier: string; id: string } | undefined, address: Partial<Party> | undefined, flag: string): Party | undefined {
  if (name === undefined) {
    if (id !== undefined || address !== undefined) throw invalidInput(`${flag}-id and ${flag}-address need ${flag} <name>`);
    return undefined;
  }
  return { name, ...id, ...address };
}

/** Required segments that only the profile can fill: refused when the profile lacks what they need, not at the first order. */
const PROFILE_NEEDS: { doc: RequiringDocument; segment: string; has: (p: DocumentProfile) => boolean; flag: string }[] = [
  { doc: '856', segment: 'N1-SF', has: (p) => p.ship_from !== undefined, flag: '--ship-from <name>' },
  { doc: '810', segment: 'N1-RE', has: (p) => p.remit_to !== undefined, flag: '--remit-to <name>' },
  { doc: '810', segment: 'ITD', has: (p) => p.terms !== undefined, flag: '--terms <terms>' },
  ...REQUIRING_DOCUMENTS.map((doc) => ({ doc, segment: 'REF-IA', has: (p: DocumentProfile) => p.vendor_number !== undefined, flag: '--vendor-number <id>' })),
];

/** The flags given, laid over the profile the partner has: a flag left out keeps what is there. */
function mergeProfile(current: DocumentProfile, p: z.infer<typeof profileInput>): DocumentProfile {
  const next: DocumentProfile = { ...current };
  const shipFrom = party(p.shipFrom, p.shipFromId, p.shipFromAddress, '--ship-from');
  if (shipFrom !== undefined) next.ship_from = shipFrom;
  const remitTo = party(p.remitTo, p.remitToId, p.remitToAddress, '--remit-to');
  if (remitTo !== undefined) next.remit_to = remitTo;
  const billTo = party(p.billTo, p.billToId, p.billToAddress, '--bill-to');
  if (billTo !== undefined) next.bill_to = billTo;
  if (p.vendorNumber !== undefined) next.vendor_number = p.vendorNumber;
  if (p.scac !== undefined) next.scac = p.scac;
  if (p.leadDays !== undefined) next.lead_days = p.leadDays;
  if (p.terms !== undefined) next.terms = p.terms;
  if (p.packaging !== undefined) next.packaging = p.packaging;
  if (p.validation !== undefined) next.validation = p.validation;
  if (p.require !== undefined && p.require856 !== undefined) throw invalidInput('--require is the former name of --require-856: give one of them');
  const lists: RequiredSegments = { '855': p.require855, '856': p.require856 ?? p.require, '810': p.require810 };
  for (const doc of REQUIRING_DOCUMENTS) {
    const list = lists[doc];
    if (list !== undefined) next.require = { ...next.require, [doc]: list };
  }
  for (const need of PROFILE_NEEDS) {
    const required: readonly string[] = next.require?.[need.doc] ?? [];
    if (required.includes(need.segment) && !need.has(next)) throw invalidInput(`--require-${need.doc} ${need.segment} needs ${need.flag}`);
  }
  return next;
}

function parseProfileInput(raw: PartnerProfileInput): z.infer<typeof profileInput> {
  const parsed = profileInput.safeParse(raw);
  if (!parsed.success) throw invalidFromMessages(parsed.error.issues);
  return parsed.data;
}

const createInput = z.object({
  org: z.string().min(1),
  name: z.string().trim().min(1, '--name is required').max(100),
  isa: isaSchema('--isa'),
  gs: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{1,14}$/, '--gs must be 2-15 letters or digits').optional(),
  ourIsa: isaSchema('--our-isa').optional(),
  outboundUrl: z
    .string()
    .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), '--outbound-url must be an http(s) URL')
    .optional(),
  skuQualifiers: z
    .string()
    .transform((v) => v.split(',').map((q) => q.trim().toUpperCase()).filter(Boolean))
    .refine((list) => list.length > 0 && list.length <= 10 && list.every((q) => QUALIFIER.test(q)), '--sku-qualifiers must be 1-10 two-character codes, comma-separated')
    .refine((list) => new Set(list).size === list.length, '--sku-qualifiers lists a code twice')
    .optional(),
});
type CreatePartnerInput = z.input<typeof createInput> & PartnerProfileInput;

export interface PartnerView {
  id: string;
  org: string;
  name: string;
  /** ISA05/ISA06 the partner sends from (and our documents go to). */
  isa: string;
  gs: string | null;
  outbound_url: string | null;
  sku_qualifiers: string[];
  /**
   * What the partner's guide asks of our documents: ship-from, remit-to, bill-to, vendor number, default SCAC, lead
   * days, terms, TD101 packaging, the segments each of 855/856/810 requires.
   */
  documents: DocumentProfile;
  /** How strictly the partner's interchanges are checked (strict unless set). */
  validation: ValidationLevel;
  /** The org's own interchange id: what the partner sends to, what our documents come from. */
  our_isa: string | null;
  created_at: string;
}

function toView(row: repo.PartnerRow, org: string, profile: repo.ProfileRow | undefined): PartnerView {
  return {
    id: row.id,
    org,
    name: row.name,
    isa: `${row.isa_qualifier}/${row.isa_id}`,
    gs: row.gs_id,
    outbound_url: row.outbound_url,
    sku_qualifiers: row.sku_qualifiers.split(','),
    documents: documentProfileOf(row),
    validation: inboundValidation(row),
    our_isa: profile === undefined ? null : `${profile.isa_qualifier}/${profile.isa_id}`,
    created_at: row.created_at,
  };
}

/** `ZZ/BUYERCO` as the API shows it. */
const interchangeId = (qualifier: string, id: string) => ({ qualifier, id });

function toApiView(row: repo.PartnerRow, profile: repo.ProfileRow | undefined): PartnerApiView {
  return {
    id: row.id,
    name: row.name,
    isa: interchangeId(row.isa_qualifier, row.isa_id),
    gs_id: row.gs_id,
    our_isa: profile === undefined ? null : interchangeId(profile.isa_qualifier, profile.isa_id),
    sku_qualifiers: row.sku_qualifiers.split(','),
    validation: inboundValidation(row),
    outbound_delivery: row.outbound_url !== null,
    documents: documentProfileOf(row),
    created_at: row.created_at,
  };
}

const partnerCursor = z.object({ n: z.string() });

/** One interchange id the org is addressed under; `main` is the one its documents come from (edi_profiles). */
interface InterchangeIdView {
  org: string;
  isa: string;
  main: boolean;
  created_at: string;
}

/** The partner's document profile; profiles stored before [15/20] read in today's shape. */
export function documentProfileOf(partner: Pick<repo.PartnerRow, 'document_profile'>): DocumentProfile {
  let profile = profilesRead.get(partner);
  if (profile === undefined) {
    profile = documentProfileSchema.parse(JSON.parse(partner.document_profile));
    profilesRead.set(partner, profile);
  }
  return profile;
}

/** Each partner row's profile read once: an interchange's 1,250 POs ask the same row for it (rows are never changed). */
const profilesRead = new WeakMap<Pick<repo.PartnerRow, 'document_profile'>, DocumentProfile>();

/** How strictly an interchange from the partner is checked: `partners profile --validation`, strict by default. */
export function inboundValidation(partner: Pick<repo.PartnerRow, 'document_profile'>): ValidationLevel {
  return documentProfileOf(partner).validation ?? 'strict';
}

/** A trading partner as EDI messages read it: who sends to us, and what their guide asks of what we send. */
export type TradingPartner = repo.PartnerRow;
/** The org's main interchange id and its control-number counter. */
export type OurInterchangeProfile = repo.ProfileRow;

/** Trading partner management for operators (CLI `partners`); orgs read theirs through edi_partners_list/get. */
export class EdiPartnersService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
  ) {}

  async create(raw: CreatePartnerInput): Promise<PartnerView> {
    const parsed = createInput.safeParse(raw);
    if (!parsed.success) throw invalidFromMessages(parsed.error.issues);
    const input = parsed.data;
    const documents = mergeProfile({}, parseProfileInput(raw));
    const org = await this.orgs.bySlug(input.org);
    const at = this.clock.now().toISOString();
    if (input.ourIsa === undefined && (await repo.findProfile(this.db, org.id)) === undefined) {
      throw invalidInput(`org ${org.slug} has no EDI interchange id yet: pass --our-isa <qualifier>/<id>`);
    }
    if (await repo.findPartnerByIsa(this.db, org.id, input.isa.qualifier, input.isa.id)) {
      throw new AppError('already_exists', `org ${org.slug} already has a partner with interchange id ${input.isa.qualifier}/${input.isa.id}`);
    }
    if (await repo.findPartnerByName(this.db, org.id, input.name)) throw new AppError('already_exists', `org ${org.slug} already has a partner named ${input.name}`);
    const row: repo.PartnerRow = {
      id: newId('tp', this.clock.now()),
      org_id: org.id,
      name: input.name,
      isa_qualifier: input.isa.qualifier,
      isa_id: input.isa.id,
      gs_id: input.gs ?? null,
      outbound_url: input.outboundUrl ?? null,
      sku_qualifiers: (input.skuQualifiers ?? DEFAULT_SKU_QUALIFIERS).join(','),
      document_profile: JSON.stringify(documents),
      created_at: at,
    };
    await this.db.transaction().execute(async (tx) => {
      if (input.ourIsa !== undefined) await repo.saveIdentity(tx, org.id, input.ourIsa.qualifier, input.ourIsa.id, at);
      await repo.insertPartner(tx, row);
    });
    return toView(row, org.slug, await repo.findProfile(this.db, org.id));
  }

  /** Changes what the partner's guide asks of our documents; flags left out keep their value. */
  async setProfile(orgSlug: string, ref: string, raw: PartnerProfileInput): Promise<PartnerView> {
    const input = parseProfileInput(raw);
    const org = await this.orgs.bySlug(orgSlug);
    const row = await repo.findPartnerByRef(this.db, org.id, ref);
    if (row === undefined) throw notFound(`partner ${ref} of org ${orgSlug}`);
    const documents = mergeProfile(documentProfileOf(row), input);
    await repo.updateDocumentProfile(this.db, org.id, row.id, JSON.stringify(documents));
    return toView({ ...row, document_profile: JSON.stringify(documents) }, org.slug, await repo.findProfile(this.db, org.id));
  }

  /** Adds an interchange id partners may address the org under (ISA07/ISA08); our documents keep coming from the main one. */
  async addInterchangeId(orgSlug: string, isa: string): Promise<InterchangeIdView> {
    const parsed = isaSchema('--isa').safeParse(isa);
    if (!parsed.success) throw invalidFromMessages(parsed.error.issues);
    const { qualifier, id } = parsed.data;
    const org = await this.orgs.bySlug(orgSlug);
    const profile = await repo.findProfile(this.db, org.id);
    if (profile === undefined) throw invalidInput(`org ${org.slug} has no EDI interchange id yet: create a partner with --our-isa <qualifier>/<id> first`);
    const taken = (profile.isa_qualifier === qualifier && profile.isa_id === id) || (await repo.isExtraInterchangeId(this.db, org.id, qualifier, id));
    if (taken) throw new AppError('already_exists', `org ${org.slug} already has interchange id ${qualifier}/${id}`);
    const at = this.clock.now().toISOString();
    await repo.insertInterchangeId(this.db, org.id, qualifier, id, at);
    return { org: org.slug, isa: `${qualifier}/${id}`, main: false, created_at: at };
  }

  /** The main interchange id first, then the further ones. */
  async listInterchangeIds(orgSlug: string): Promise<InterchangeIdView[]> {
    const org = await this.orgs.bySlug(orgSlug);
    const profile = await repo.findProfile(this.db, org.id);
    const main: InterchangeIdView[] =
      profile === undefined ? [] : [{ org: org.slug, isa: `${profile.isa_qualifier}/${profile.isa_id}`, main: true, created_at: profile.created_at }];
    const extra = (await repo.listInterchangeIds(this.db, org.id)).map((r) => ({ org: org.slug, isa: `${r.isa_qualifier}/${r.isa_id}`, main: false, created_at: r.created_at }));
    return [...main, ...extra];
  }

  async list(orgSlug: string): Promise<PartnerView[]> {
    const org = await this.orgs.bySlug(orgSlug);
    const profile = await repo.findProfile(this.db, org.id);
    return (await repo.listPartners(this.db, org.id)).map((row) => toView(row, org.slug, profile));
  }

  /** By id, or else by name. */
  async show(orgSlug: string, ref: string): Promise<PartnerView> {
    const org = await this.orgs.bySlug(orgSlug);
    const row = await repo.findPartnerByRef(this.db, org.id, ref);
    if (row === undefined) throw notFound(`partner ${ref} of org ${orgSlug}`);
    return toView(row, org.slug, await repo.findProfile(this.db, org.id));
  }

  // The org-scoped API (edi_partners_list, edi_partners_get): read-only, secrets left out.

  async listForApi(db: Executor, orgId: string, query: ListPartnersQuery): Promise<{ partners: PartnerApiView[]; our_interchange_ids: OurInterchangeId[]; next_cursor: string | null }> {
    const after = decodeCursor(query.cursor, partnerCursor);
    const rows = await repo.listPartnersPage(db, orgId, { ...(after === undefined ? {} : { afterName: after.n }), limit: query.limit + 1 });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ n: row.name }));
    const profile = await repo.findProfile(db, orgId);
    const main = profile === undefined ? [] : [{ ...interchangeId(profile.isa_qualifier, profile.isa_id), main: true }];
    const extra = (await repo.listInterchangeIds(db, orgId)).map((r) => ({ ...interchangeId(r.isa_qualifier, r.isa_id), main: false }));
    return { partners: items.map((row) => toApiView(row, profile)), our_interchange_ids: [...main, ...extra], next_cursor };
  }

  async getForApi(db: Executor, orgId: string, id: string): Promise<PartnerApiView> {
    const row = await repo.findPartnerById(db, orgId, id);
    if (row === undefined) throw notFound(`EDI partner ${id}`);
    return toApiView(row, await repo.findProfile(db, orgId));
  }

  // What EDI messages read, in the caller's transaction when `db` is one (the counter always is).

  /** The partner an interchange comes from (ISA05/ISA06). */
  senderOf(db: Executor, orgId: string, qualifier: string, id: string): Promise<TradingPartner | undefined> {
    return repo.findPartnerByIsa(db, orgId, qualifier, id);
  }

  partnerById(db: Executor, orgId: string, id: string): Promise<TradingPartner | undefined> {
    return repo.findPartnerById(db, orgId, id);
  }

  partnersByIds(db: Executor, orgId: string, ids: string[]): Promise<TradingPartner[]> {
    return repo.findPartnersByIds(db, orgId, ids);
  }

  ourProfile(db: Executor, orgId: string): Promise<OurInterchangeProfile | undefined> {
    return repo.findProfile(db, orgId);
  }

  /** Whether ISA07/ISA08 addresses the org of `ours`: its main interchange id or one added with `partners our-ids add`. */
  async isOurInterchangeId(db: Executor, ours: OurInterchangeProfile, qualifier: string, id: string): Promise<boolean> {
    if (ours.isa_qualifier === qualifier && ours.isa_id === id) return true;
    return repo.isExtraInterchangeId(db, ours.org_id, qualifier, id);
  }

  /** The first of `count` fresh control numbers (ISA13/GS06 of what we send); locked until the transaction ends. */
  reserveControlNumbers(tx: Tx, orgId: string, count: number): Promise<number> {
    return repo.reserveControlNumbers(tx, orgId, count);
  }
}
