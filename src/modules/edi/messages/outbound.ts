import type { Tx } from '../../../platform/db/schema.js';
import { newId } from '../../../platform/core/ids.js';
import { type DeliveryInput, enqueueDeliveries, hubDelivery, PARTNER_DESTINATION } from '../../../platform/outbox/outbox.js';
import { sha256Hex } from './interchange-bytes.js';
import * as messages from './messages.repository.js';
import type { OurInterchangeProfile, TradingPartner } from '../partners/partners.service.js';
import type { Body } from './outbound-sets.js';
import { buildInterchange, chooseDelimiters, DEFAULT_DELIMITERS_00401, DEFAULT_DELIMITERS_00501, EchoedChars, scrub } from '../x12/index.js';

type GroupVersion = '004010' | '005010';

/**
 * A document up to this size is carried inline (the POST answer's reply, the `edi.document` event's `x12`); a larger one
 * is read from its message (GET /v1/edi/messages/:id?include=raw), so a 5 MB 997 is stored once, not copied into events.
 */
export const MAX_INLINE_X12_BYTES = 512 * 1024;

export type OutboundType = '855' | '856' | '810' | '997';

/** GS01 of each document the gateway sends. */
const FUNCTIONAL_ID: Readonly<Record<OutboundType, string>> = { '855': 'PR', '856': 'SH', '810': 'IN', '997': 'FA' };

/** Which version an inbound GS08 asks answers in; anything not 005010 is answered in 004010. */
export function versionOf(gs08: string): GroupVersion {
  return gs08.startsWith('005010') ? '005010' : '004010';
}

export interface Envelope {
  profile: OurInterchangeProfile;
  partner: TradingPartner;
  version: GroupVersion;
  /** ISA13 and GS06: one group per interchange, so one number serves both. */
  controlNumber: number;
  date: Date;
}

/** One set in its own interchange to the partner; delimiters step aside for echoed data, so the writer never throws on it. */
export function wrapSet(type: OutboundType, body: Body, env: Envelope): string {
  const preferred = env.version === '005010' ? DEFAULT_DELIMITERS_00501 : DEFAULT_DELIMITERS_00401;
  const senderCode = env.profile.isa_id;
  const receiverCode = env.partner.gs_id ?? env.partner.isa_id;
  const echoed = EchoedChars.of(senderCode, receiverCode, env.partner.isa_id, env.profile.isa_id);
  for (const segment of body) for (const v of segment) for (const value of typeof v === 'string' ? [v] : v) echoed.add(value);
  const delimiters = chooseDelimiters(preferred, echoed);
  const clean = (v: string): string => scrub(v, delimiters);
  return buildInterchange(
    {
      sender: { qualifier: env.profile.isa_qualifier, id: clean(env.profile.isa_id) },
      receiver: { qualifier: env.partner.isa_qualifier, id: clean(env.partner.isa_id) },
      controlNumber: env.controlNumber,
      date: env.date,
      version: env.version === '005010' ? '00501' : '00401',
      usage: 'P',
      groups: [
        {
          functionalId: FUNCTIONAL_ID[type],
          senderCode: clean(senderCode),
          receiverCode: clean(receiverCode),
          controlNumber: env.controlNumber,
          version: env.version,
          sets: [{ id: type, controlNumber: 1, segments: body.map((segment) => segment.map((v) => (typeof v === 'string' ? clean(v) : v.map(clean)))) }],
        },
      ],
    },
    delimiters,
    { newline: true },
  );
}

interface OutboundRecord {
  orgId: string;
  partner: TradingPartner;
  // A TA1 has no functional group, so it is no OutboundType of wrapSet.
  type: OutboundType | 'TA1';
  x12: string;
  controlNumber: number;
  /** The inbound message this answers. */
  relatedId: string;
  orderId: string | null;
  poNumber: string | null;
  /** Send it to the partner's outbound URL (997s are answered inline instead). */
  deliver: boolean;
  at: Date;
  /** The X12's bytes and their SHA-256 when the caller has them (hashed paced, outside the transaction). */
  encoded?: { raw: Buffer; sha256: string };
}

/** Stores a generated document and queues it for the partner's URL and the hub, in the caller's transaction. */
export async function recordOutbound(tx: Tx, record: OutboundRecord): Promise<string> {
  const [id] = await recordOutbounds(tx, [record]);
  return id as string;
}

/** recordOutbound for many documents: a few multi-row statements, all in the caller's transaction; returns their message ids in order. */
export async function recordOutbounds(tx: Tx, records: readonly OutboundRecord[]): Promise<string[]> {
  const ids: string[] = [];
  const rows: messages.MessageRow[] = [];
  const documents: messages.DocumentRow[] = [];
  const deliveries: DeliveryInput[] = [];
  const chunks: { orgId: string; id: string; raw: Buffer }[] = [];
  for (const record of records) {
    const at = record.at.toISOString();
    const id = newId('msg', record.at);
    const raw = record.encoded?.raw ?? Buffer.from(record.x12, 'utf8');
    // A large document's bytes go to chunk rows, like a received body's: the database never copies one huge value.
    if (messages.chunked(raw)) chunks.push({ orgId: record.orgId, id, raw });
    const controlNumber = String(record.controlNumber).padStart(9, '0');
    ids.push(id);
    rows.push({
      id,
      org_id: record.orgId,
      direction: 'outbound',
      partner_id: record.partner.id,
      type: record.type,
      control_number: controlNumber,
      status: 'generated',
      size: raw.length,
      sha256: record.encoded?.sha256 ?? sha256Hex(raw),
      raw: messages.chunked(raw) ? Buffer.alloc(0) : raw,
      errors: null,
      http_status: null,
      result: null,
      related_id: record.relatedId,
      parent_id: null,
      order_id: record.orderId,
      sets_total: null,
      lease_owner: null,
      created_at: at,
      updated_at: at,
    });
    documents.push({
      message_id: id,
      seq: 1,
      org_id: record.orgId,
      type: record.type,
      group_control: String(record.controlNumber),
      control_number: '0001',
      status: 'generated',
      po_number: record.poNumber,
      order_id: record.orderId,
      detail: JSON.stringify({ errors: [] }),
    });
    if (record.deliver && record.partner.outbound_url !== null) {
      // The outbox row takes the message id: one delivery per document, and the partner's Idempotency-Key.
      deliveries.push({
        id,
        orgId: record.orgId,
        destination: PARTNER_DESTINATION,
        target: record.partner.outbound_url,
        type: 'edi.document',
        contentType: 'text/plain',
        payload: record.x12,
        createdAt: at,
      });
    }
    deliveries.push(
      hubDelivery({
        type: 'edi.document',
        orgId: record.orgId,
        at: record.at,
        data: {
          message_id: id,
          direction: 'outbound',
          type: record.type,
          partner: { id: record.partner.id, name: record.partner.name },
          control_number: controlNumber,
          related_message_id: record.relatedId,
          order_id: record.orderId,
          po_number: record.poNumber,
          size: raw.length,
          // Past the bound the event names the stored message instead of repeating its bytes (as the POST answer's reply does).
          ...(raw.length <= MAX_INLINE_X12_BYTES ? { x12: record.x12 } : {}),
        },
      }),
    );
  }
  await messages.insertMessages(tx, rows);
  for (const c of chunks) await messages.insertChunks(tx, c.orgId, c.id, c.raw);
  await messages.insertDocuments(tx, documents);
  await enqueueDeliveries(tx, deliveries);
  return ids;
}
