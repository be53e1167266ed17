import { z } from 'zod';
import type { Executor } from '../../../platform/db/schema.js';
import type { Settle } from '../../../platform/operations/operation.js';
import { AppError, notFound } from '../../../platform/core/errors.js';
import { decodeCursor, page, sincePage, sinceWindowOf } from '../../../platform/core/pagination.js';
import type { DeliveriesService } from '../../../platform/outbox/deliveries.service.js';
import type { OrderStatusListener } from '../../orders/orders.service.js';
import {
  documentDetailSchema,
  type DocumentView,
  ediErrorSchema,
  type GetMessageQuery,
  type ListMessagesQuery,
  type MessageDetail,
  type MessageSummary,
  RAW_SLICE_BYTES,
  type SubmitResult,
} from './messages.schemas.js';
import { InterchangeIntake } from './intake/intake.js';
import type { IntakeDeps } from './intake/received.js';
import { sliceInterchange } from './interchange-bytes.js';
import * as messages from './messages.repository.js';
import type { EdiPartnersService } from '../partners/partners.service.js';
import { statusDocuments } from './status-documents.js';

const cursorSchema = z.object({ c: z.string(), i: z.string() });
const errorsSchema = z.array(ediErrorSchema);

function toDocumentView(row: messages.DocumentRow): DocumentView {
  const { errors } = documentDetailSchema.parse(JSON.parse(row.detail));
  return {
    type: row.type,
    control_number: row.control_number,
    status: row.status,
    ...(row.po_number === null ? {} : { po_number: row.po_number }),
    ...(row.order_id === null ? {} : { order_id: row.order_id }),
    ...(errors.length === 0 ? {} : { errors }),
  };
}

/** The raw interchange's size, and the part of it include=raw asks for. */
async function rawPart(db: Executor, orgId: string, row: messages.StoredMessage, query: GetMessageQuery): Promise<Pick<MessageDetail, 'x12' | 'raw'>> {
  const size = Number(row.size);
  if (query.include !== 'raw') return { raw: { size, included: false, offset: 0, length: 0, next_offset: null } };
  const part = sliceInterchange(await messages.readRaw(db, orgId, row.id), query.raw_offset ?? 0, RAW_SLICE_BYTES);
  return { x12: part.text, raw: { size, included: true, offset: part.offset, length: part.length, next_offset: part.nextOffset } };
}

/** The org-scoped EDI resource layer behind REST and MCP, and the orders hook that sends 855/856/810. */
export class EdiService {
  private readonly intake: InterchangeIntake;
  /** Register with OrdersService.onStatusChanged. */
  readonly onOrderStatusChanged: OrderStatusListener;

  private readonly partners: EdiPartnersService;

  constructor(
    deps: IntakeDeps,
    private readonly deliveries: DeliveriesService,
  ) {
    this.partners = deps.partners;
    this.intake = new InterchangeIntake(deps);
    this.onOrderStatusChanged = statusDocuments(deps.clock, deps.partners);
  }

  /** Takes one raw interchange; a refusal (not X12, syntax, partner, resend conflict) throws with its details. */
  async submit(orgId: string, body: Buffer, settle: Settle): Promise<SubmitResult> {
    const answer = await this.intake.receive(orgId, body, settle);
    if (answer.kind === 'ok') return answer.body;
    throw new AppError(answer.code, answer.message, answer.details);
  }

  /** Newest first, or with updated_since / created_since every message since then in time order (decisions.md). */
  async listMessages(db: Executor, orgId: string, query: ListMessagesQuery): Promise<{ messages: MessageSummary[]; next_cursor: string | null }> {
    const filters = {
      ...(query.direction === undefined ? {} : { direction: query.direction }),
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.partner === undefined ? {} : { partner: query.partner }),
      limit: query.limit + 1,
    };
    const since = sinceWindowOf(query);
    let found: { items: messages.MessageSummaryRow[]; next_cursor: string | null };
    if (since !== undefined) {
      found = sincePage(await messages.listMessages(db, orgId, { ...filters, since }), query.limit, since, (row) => ({ at: row[since.column], id: row.id }));
    } else {
      const after = decodeCursor(query.cursor, cursorSchema);
      const rows = await messages.listMessages(db, orgId, { ...filters, ...(after === undefined ? {} : { before: { createdAt: after.c, id: after.i } }) });
      found = page(rows, query.limit, (row) => ({ c: row.created_at, i: row.id }));
    }
    const { items, next_cursor } = found;
    return { messages: await this.summaries(db, orgId, items), next_cursor };
  }

  async getMessage(db: Executor, orgId: string, id: string, query: GetMessageQuery): Promise<MessageDetail> {
    const row = await messages.findMessage(db, orgId, id);
    if (row === undefined) throw notFound(`EDI message ${id}`);
    const [summary] = await this.summaries(db, orgId, [row]);
    if (summary === undefined) throw notFound(`EDI message ${id}`);
    const documents = await messages.findDocuments(db, orgId, id);
    return {
      ...summary,
      documents: documents.map(toDocumentView),
      errors: row.errors === null ? [] : errorsSchema.parse(JSON.parse(row.errors)),
      ...(await rawPart(db, orgId, row, query)),
      ...(row.sets_total === null || row.result !== null ? {} : { progress: { sets: row.sets_total, taken: documents.length } }),
    };
  }

  private async summaries(db: Executor, orgId: string, rows: messages.MessageSummaryRow[]): Promise<MessageSummary[]> {
    const partnerIds = [...new Set(rows.flatMap((r) => (r.partner_id === null ? [] : [r.partner_id])))];
    const byId = new Map((await this.partners.partnersByIds(db, orgId, partnerIds)).map((p) => [p.id, p]));
    // An outbound document sent to a partner URL is delivered under its own message id.
    const states = await this.deliveries.publicStates(db, rows.filter((r) => r.direction === 'outbound').map((r) => r.id));
    return rows.map((row) => {
      const partner = row.partner_id === null ? undefined : byId.get(row.partner_id);
      return {
        id: row.id,
        direction: row.direction,
        type: row.type,
        status: row.status,
        partner: partner === undefined ? null : { id: partner.id, name: partner.name },
        control_number: row.control_number,
        size: Number(row.size),
        sha256: row.sha256,
        related_message_id: row.related_id,
        parent_message_id: row.parent_id,
        order_id: row.order_id,
        delivery: states.get(row.id) ?? null,
        created_at: row.created_at,
        updated_at: row.updated_at,
      };
    });
  }
}
