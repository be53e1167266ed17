import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { AuthContext } from '../../platform/auth/scopes.js';
import type { Clock } from '../../platform/core/clock.js';
import type { Executor, Tx } from '../../platform/db/schema.js';
import { AppError, invalidInput, invalidTransition, notFound } from '../../platform/core/errors.js';
import { decodeCursor, page, sincePage, sinceWindowOf } from '../../platform/core/pagination.js';
import { newId } from '../../platform/core/ids.js';
import { enqueueHubEvent } from '../../platform/outbox/outbox.js';
import type { ProductsService } from '../products/products.service.js';
import { allowedNext, canMove, INITIAL_STATUS } from './claim-states.js';
import { checkDotNumber } from './dot-code.js';
import type { Claim, CreateClaimInput, CustomerClaimInput, CustomerClaimStatus, ListClaimsQuery, UpdateClaimInput } from './warranty.schemas.js';
import * as repo from './warranty.repository.js';

const CLAIM_NUMBER = /^WC-(\d{1,15})$/i;
const cursorSchema = z.object({ n: z.number().int().positive() });

/** Who files or moves a claim: the door and key recorded on it, and a portal key's dealer. */
export type ClaimAuthor = Pick<AuthContext, 'source' | 'keyId' | 'dealer'>;

/** What a new claim holds, whichever door it came through. */
type ClaimFields = Omit<CreateClaimInput, 'customer_ref'> & { customer_ref?: string | null | undefined; dealer: string | null; contact_email: string | null };

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Equal texts, compared in constant time over digests (equal lengths whatever was sent). */
function sameText(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function formatClaimNumber(n: number): string {
  return `WC-${String(n).padStart(6, '0')}`;
}

function toClaim(row: repo.ClaimRow, history: repo.HistoryRow[]): Claim {
  return {
    id: row.id,
    claim_number: row.claim_number,
    status: row.status,
    description: row.description,
    sku: row.sku,
    dot_number: row.dot_number,
    quantity: row.quantity === null ? null : Number(row.quantity),
    customer_ref: row.customer_ref,
    dealer: row.dealer,
    contact_email: row.contact_email,
    resolution: row.resolution,
    history: history.map((h) => ({ from: h.from_status, to: h.to_status, at: h.at, key_id: h.key_id })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The org-scoped warranty claim resource layer behind REST and MCP. */
export class WarrantyService {
  constructor(
    private readonly clock: Clock,
    private readonly products: ProductsService,
  ) {}

  /** Newest first by number, or with updated_since / created_since every claim since then in time order (decisions.md). */
  async list(db: Executor, orgId: string, query: ListClaimsQuery): Promise<{ claims: Claim[]; next_cursor: string | null }> {
    const since = sinceWindowOf(query);
    const filters = { ...(query.status ? { status: query.status } : {}), limit: query.limit + 1 };
    let found: { items: repo.ClaimRow[]; next_cursor: string | null };
    if (since !== undefined) {
      found = sincePage(await repo.listClaims(db, orgId, { ...filters, since }), query.limit, since, (row) => ({ at: row[since.column], id: row.id }));
    } else {
      const before = decodeCursor(query.cursor, cursorSchema);
      const rows = await repo.listClaims(db, orgId, { ...filters, ...(before ? { beforeNumber: before.n } : {}) });
      found = page(rows, query.limit, (row) => ({ n: Number(row.number) }));
    }
    const { items, next_cursor } = found;
    const history = await repo.historyOf(db, orgId, items.map((r) => r.id));
    return { claims: items.map((r) => toClaim(r, history.filter((h) => h.claim_id === r.id))), next_cursor };
  }

  async get(db: Executor, orgId: string, idOrNumber: string): Promise<Claim> {
    const row = await this.find(db, orgId, idOrNumber);
    return toClaim(row, await repo.historyOf(db, orgId, [row.id]));
  }

  create(tx: Tx, orgId: string, by: ClaimAuthor, input: CreateClaimInput): Promise<Claim> {
    return this.file(tx, orgId, by, { ...input, dealer: null, contact_email: null });
  }

  /** A claim a customer files on a dealer's site (portal door): recorded with the dealer, sent to the hub like any other. */
  async fileForCustomer(tx: Tx, orgId: string, by: ClaimAuthor, input: CustomerClaimInput): Promise<CustomerClaimStatus> {
    const claim = await this.file(tx, orgId, by, { ...input, dealer: by.dealer ?? null });
    return { claim_number: claim.claim_number, status: claim.status };
  }

  /**
   * A claim's status for the customer who filed it through this dealer: only with its customer_ref (compared in constant
   * time), otherwise the same 404 as a claim that does not exist, so claim numbers cannot be probed.
   */
  async statusForCustomer(db: Executor, orgId: string, dealer: string | undefined, claimNumber: string, customerRef: string): Promise<CustomerClaimStatus> {
    const m = CLAIM_NUMBER.exec(claimNumber);
    const row = m ? await repo.findClaimByNumber(db, orgId, Number(m[1])) : undefined;
    const filedHere = row !== undefined && row.source === 'portal' && row.dealer === (dealer ?? null);
    // Compared whether or not the claim exists, so both answers take the same time.
    const refMatches = sameText(row?.customer_ref ?? '', customerRef);
    if (!row || !filedHere || !refMatches) throw notFound(`warranty claim ${claimNumber}`);
    return { claim_number: row.claim_number, status: row.status };
  }

  private async file(tx: Tx, orgId: string, by: ClaimAuthor, input: ClaimFields): Promise<Claim> {
    const now = this.clock.now();
    const at = now.toISOString();
    const dotNumber = this.checkedDotNumber(input.dot_number, now);
    const sku = await this.catalogSku(tx, orgId, input.sku);
    const number = await repo.takeClaimNumber(tx, orgId);
    const row: repo.ClaimRow = {
      id: newId('wc', now),
      org_id: orgId,
      number,
      claim_number: formatClaimNumber(number),
      status: INITIAL_STATUS,
      description: input.description,
      sku,
      dot_number: dotNumber,
      quantity: input.quantity ?? null,
      customer_ref: input.customer_ref ?? null,
      dealer: input.dealer,
      contact_email: input.contact_email,
      resolution: null,
      source: by.source,
      created_by: by.keyId,
      created_at: at,
      updated_at: at,
    };
    const history: repo.HistoryRow = {
      claim_id: row.id, seq: 1, org_id: orgId, from_status: null, to_status: INITIAL_STATUS, at, key_id: by.keyId,
    };
    await repo.insertClaim(tx, row);
    await repo.insertHistory(tx, history);
    const claim = toClaim(row, [history]);
    await enqueueHubEvent(tx, { type: 'warranty_claim.created', orgId, data: claim, at: now });
    return claim;
  }

  async update(tx: Tx, orgId: string, by: ClaimAuthor, idOrNumber: string, input: UpdateClaimInput): Promise<Claim> {
    const now = this.clock.now();
    const at = now.toISOString();
    const current = await this.find(tx, orgId, idOrNumber);
    const from = current.status;
    const history = await repo.historyOf(tx, orgId, [current.id]);
    if (from === 'closed' && input.resolution !== undefined) {
      throw new AppError('invalid_transition', `claim ${current.claim_number} is closed: its resolution can no longer change`, { status: from, allowed: allowedNext(from) }, undefined, 'resolution');
    }
    const to = input.status ?? from;
    if (input.status !== undefined && !canMove(from, input.status)) throw invalidTransition(`claim ${current.claim_number}`, from, input.status, allowedNext(from));
    const updated = await repo.updateClaimIfStatus(tx, orgId, current.id, from, {
      status: to,
      resolution: input.resolution === undefined ? current.resolution : input.resolution,
      updated_at: at,
    });
    if (!updated) throw new AppError('concurrent_change', `claim ${current.claim_number} was changed by another request; read it and retry`);
    if (input.status !== undefined) {
      const entry: repo.HistoryRow = {
        claim_id: current.id, seq: history.length + 1, org_id: orgId, from_status: from, to_status: to, at, key_id: by.keyId,
      };
      await repo.insertHistory(tx, entry);
      history.push(entry);
    }
    const claim = toClaim(updated, history);
    await enqueueHubEvent(tx, {
      type: 'warranty_claim.updated',
      orgId,
      data: { ...claim, previous_status: from },
      at: now,
    });
    return claim;
  }

  /** A claim by id (`wc_…`) or claim number (`WC-000042`, any case); another org's claim is not found. */
  private async find(db: Executor, orgId: string, idOrNumber: string): Promise<repo.ClaimRow> {
    const m = CLAIM_NUMBER.exec(idOrNumber);
    const row = m ? await repo.findClaimByNumber(db, orgId, Number(m[1])) : await repo.findClaimById(db, orgId, idOrNumber);
    if (!row) throw notFound(`warranty claim ${idOrNumber}`);
    return row;
  }

  private checkedDotNumber(value: string | null | undefined, now: Date): string | null {
    if (value === undefined || value === null) return null;
    const checked = checkDotNumber(value, now);
    if (!checked.ok) throw invalidInput(checked.message, [{ path: 'dot_number', message: checked.message }]);
    return checked.value;
  }

  /** The SKU as the catalog spells it; an SKU outside the org's catalog is refused. */
  private async catalogSku(db: Executor, orgId: string, sku: string | null | undefined): Promise<string | null> {
    if (sku === undefined || sku === null) return null;
    const product = (await this.products.catalogOf(db, orgId, [sku])).get(sku.toLowerCase());
    if (!product) {
      const message = `unknown sku ${sku}: it is not in your catalog`;
      throw new AppError('unknown_sku', message, [{ path: 'sku', message }]);
    }
    return product.sku;
  }
}
