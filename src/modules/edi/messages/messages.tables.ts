// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.
import type { DocumentStatus, EdiDirection, MessageStatus } from './messages.schemas.js';

/** The shipment an EDI order shipped with (JSON of the status change's `shipment`). */
export interface EdiShipmentsTable {
  org_id: string;
  order_id: string;
  shipped_at: string;
  shipment: string;
}

/** One interchange received or sent, raw bytes included. */
export interface EdiMessagesTable {
  id: string;
  org_id: string;
  direction: EdiDirection;
  partner_id: string | null;
  /** Transaction set ids it carries, comma-separated when mixed; null when unreadable. */
  type: string | null;
  /** ISA13 */
  control_number: string | null;
  status: MessageStatus;
  size: number;
  sha256: string;
  /** The bytes, unless they are in edi_message_chunks (received bodies): then empty. */
  raw: Buffer;
  /** JSON: interchange-level findings. */
  errors: string | null;
  /** What POST /v1/edi answered (status and JSON body), replayed for a resend. */
  http_status: number | null;
  result: string | null;
  /** Outbound: the inbound message it answers; inbound duplicate or conflict: the original. */
  related_id: string | null;
  /** Inbound: the body this interchange came in, when the body carried several. */
  parent_id: string | null;
  order_id: string | null;
  /** Inbound, once taking began: the interchange's transaction sets (its documents say how many were taken). */
  sets_total: number | null;
  /** Inbound, while taken in slices: the process taking it (gateway_instances.id), which holds it while it lives. */
  lease_owner: string | null;
  created_at: string;
  updated_at: string;
}

/** One piece of a received body's bytes, in `seq` order from 0. */
interface EdiMessageChunksTable {
  message_id: string;
  seq: number;
  org_id: string;
  data: Buffer;
}

/** One transaction set of a message. */
export interface EdiDocumentsTable {
  message_id: string;
  seq: number;
  org_id: string;
  type: string;
  group_control: string;
  control_number: string;
  status: DocumentStatus;
  po_number: string | null;
  order_id: string | null;
  /** JSON: errors, and for an 850 what outbound documents echo (version, PO date, lines). */
  detail: string;
}

export interface EdiInterchangesTable {
  org_id: string;
  partner_id: string;
  control_number: string;
  sha256: string;
  message_id: string;
}

declare module '../../../platform/db/schema.js' {
  interface Database {
    edi_messages: EdiMessagesTable;
    edi_message_chunks: EdiMessageChunksTable;
    edi_documents: EdiDocumentsTable;
    edi_interchanges: EdiInterchangesTable;
    edi_shipments: EdiShipmentsTable;
  }
}
