import type { Tx } from '../../../platform/db/schema.js';
import { newId } from '../../../platform/core/ids.js';
import { type DeliveryInput, enqueueDeliveries, hubDelivery, PARTNER_DESTINATION } from '../../../platform/outbox/outbox.js';
import { sha256Hex } from './interchange-bytes.js';
import * as messages from './messages.repository.js';
import type { OurInterchangeProfile, TradingPartner } from '../partners/partners.service.js';
import type { Body } from './outbound-sets.js';
import { buildInterchange, chooseDelimiters, DEFAULT_DELIMITERS_00401, DEFAULT_DELIMITERS_00501, scrub } from '../x12/index.js';

type GroupVersion = '004010' | '005010';
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
  const values = body.flatMap((segment) => segment.flatMap((v) => (typeof v === 'string' ? [v] : [...v])));
  const senderCode = env.profile.isa_id;
  const receiverCode = env.partner.gs_id ?? env.partner.isa_id;
  const d = chooseDelimiters(preferred, [...values, senderCode, receiverCode, env.partner.isa_id, env.profile.isa_id].join(''));
  const clean = (v: string): string => scrub(v, d);
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
    d,
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
}

/** Stores a generated document and queues it for the partner's URL and the hub, in the caller's transaction. */
export async function recordOutbound(tx: Tx, r: OutboundRecord): Promise<string> {
  const [id] = await recordOutbounds(tx, [r]);
  return id as string;
}

/** recordOutbound for many documents: a few multi-row statements, all in the caller's transaction; returns their message ids in order. */
export async function recordOutbounds(tx: Tx, records: readonly OutboundRecord[]): Promise<string[]> {
  const ids: string[] = [];
  const rows: messages.MessageRow[] = [];
  const documents: messages.DocumentRow[] = [];
  const deliveries: DeliveryInput[] = [];
  for (const r of records) {
    const at = r.at.toISOString();
    const id = newId('msg', r.at);
    const raw = Buffer.from(r.x12, 'utf8');
    const controlNumber = String(r.controlNumber).padStart(9, '0');
    ids.push(id);
    rows.push({
      id,
      org_id: r.orgId,
      direction: 'outbound',
      partner_id: r.partner.id,
      type: r.type,
      control_number: controlNumber,
      status: 'generated',
      size: raw.length,
      sha256: sha256Hex(raw),
      raw,
      errors: null,
      http_status: null,
      result: null,
      related_id: r.relatedId,
      parent_id: null,
      order_id: r.orderId,
      created_at: at,
      updated_at: at,
    });
    documents.push({
      message_id: id,
      seq: 1,
      org_id: r.orgId,
      type: r.type,
      group_control: String(r.controlNumber),
      control_number: '0001',
      status: 'generated',
      po_number: r.poNumber,
      order_id: r.orderId,
      detail: JSON.stringify({ errors: [] }),
    });
    if (r.deliver && r.partner.outbound_url !== null) {
      // The outbox row takes the message id: one delivery per document, and the partner's Idempotency-Key.
      deliveries.push({
        id,
        orgId: r.orgId,
        destination: PARTNER_DESTINATION,
        target: r.partner.outbound_url,
        type: 'edi.document',
        contentType: 'text/plain',
        payload: r.x12,
        createdAt: at,
      });
    }
    deliveries.push(
      hubDelivery({
        type: 'edi.document',
        orgId: r.orgId,
        at: r.at,
        data: {
          message_id: id,
          direction: 'outbound',
          type: r.type,
          partner: { id: r.partner.id, name: r.partner.name },
          control_number: controlNumber,
          related_message_id: r.relatedId,
          order_id: r.orderId,
          po_number: r.poNumber,
          x12: r.x12,
        },
      }),
    );
  }
  await messages.insertMessages(tx, rows);
  await messages.insertDocuments(tx, documents);
  await enqueueDeliveries(tx, deliveries);
  return ids;
}
