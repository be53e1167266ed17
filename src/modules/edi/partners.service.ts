import { z } from 'zod';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/schema.js';
import { conflict, invalidInput, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { OrgsService } from '../../platform/orgs/orgs.service.js';
import * as repo from './partners.repository.js';

/** PO1 product id qualifiers tried for the SKU when a partner names none: vendor part, vendor item, buyer part, SKU, UPC. */
export const DEFAULT_SKU_QUALIFIERS = ['VP', 'VN', 'BP', 'SK', 'UP'] as const;

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
export type CreatePartnerInput = z.input<typeof createInput>;

export interface PartnerView {
  id: string;
  org: string;
  name: string;
  /** ISA05/ISA06 the partner sends from (and our documents go to). */
  isa: string;
  gs: string | null;
  outbound_url: string | null;
  sku_qualifiers: string[];
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
    our_isa: profile === undefined ? null : `${profile.isa_qualifier}/${profile.isa_id}`,
    created_at: row.created_at,
  };
}

/** Operator-side trading partner management (CLI `partners`); not reachable through the org-scoped API. */
export class EdiPartnersService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
  ) {}

  async create(raw: CreatePartnerInput): Promise<PartnerView> {
    const parsed = createInput.safeParse(raw);
    if (!parsed.success) throw invalidInput(parsed.error.issues.map((i) => i.message).join('; '));
    const input = parsed.data;
    const org = await this.orgs.bySlug(input.org);
    const at = this.clock.now().toISOString();
    if (input.ourIsa === undefined && (await repo.findProfile(this.db, org.id)) === undefined) {
      throw invalidInput(`org ${org.slug} has no EDI interchange id yet: pass --our-isa <qualifier>/<id>`);
    }
    if (await repo.findPartnerByIsa(this.db, org.id, input.isa.qualifier, input.isa.id)) {
      throw conflict(`org ${org.slug} already has a partner with interchange id ${input.isa.qualifier}/${input.isa.id}`);
    }
    if (await repo.findPartnerByName(this.db, org.id, input.name)) throw conflict(`org ${org.slug} already has a partner named ${input.name}`);
    const row: repo.PartnerRow = {
      id: newId('tp', this.clock.now()),
      org_id: org.id,
      name: input.name,
      isa_qualifier: input.isa.qualifier,
      isa_id: input.isa.id,
      gs_id: input.gs ?? null,
      outbound_url: input.outboundUrl ?? null,
      sku_qualifiers: (input.skuQualifiers ?? DEFAULT_SKU_QUALIFIERS).join(','),
      created_at: at,
    };
    await this.db.transaction().execute(async (tx) => {
      if (input.ourIsa !== undefined) await repo.saveIdentity(tx, org.id, input.ourIsa.qualifier, input.ourIsa.id, at);
      await repo.insertPartner(tx, row);
    });
    return toView(row, org.slug, await repo.findProfile(this.db, org.id));
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
}
