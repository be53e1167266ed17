import type { Tx } from '../../../../platform/db/schema.js';
import type { InterchangeAck, Reply, SubmitResult } from '../messages.schemas.js';
import { purchaseOrderAck } from '../outbound-sets.js';
import { MAX_INLINE_X12_BYTES, recordOutbound, recordOutbounds, wrapSet } from '../outbound.js';
import { sha256HexPaced } from '../interchange-bytes.js';
import type { TradingPartner } from '../../partners/partners.service.js';
import { pace } from '../../../../platform/core/pacer.js';
import { type AckInterchange, ackControlNumbersNeededPaced, buildTa1, echoText, type GroupVerdict, type Party, type Ta1Code, ta1Verdict, write997Interchange } from '../../x12/index.js';
import type { Owed } from './read-documents.js';
import type { IntakeDeps, Received } from './received.js';
import type { Checked } from './screen.js';

// Step 4 of the intake, acknowledge: the 855s owed at receipt with each slice, then one interchange back with every 997 and the TA1.

/** TA104/TA105 of a TA1 to send. */
export interface Ta1Verdict {
  code: Ta1Code;
  noteCode: string;
}

export interface Acknowledged {
  acknowledgments: SubmitResult['acknowledgments'];
  interchangeAck?: InterchangeAck;
  reply?: Reply;
}

/** The stored reply as the answer shows it: the X12 inline unless it is too large to be. */
export function replyView(messageId: string, controlNumber: number, x12: string): Reply {
  const size = Buffer.byteLength(x12);
  return { message_id: messageId, control_number: String(controlNumber).padStart(9, '0'), size, ...(size <= MAX_INLINE_X12_BYTES ? { x12 } : {}) };
}

/** Writes and records the 855s owed at receipt for the POs of one slice, in the slice's transaction. */
export async function send855s(tx: Tx, deps: IntakeDeps, received: Received, checked: Checked, owed: readonly Owed[]): Promise<void> {
  if (owed.length === 0) return;
  const { partner, profile } = checked;
  const first = await deps.partners.reserveControlNumbers(tx, received.orgId, owed.length);
  const out = { orgId: received.orgId, partner, relatedId: received.messageId, at: received.at };
  const sent = owed.map(({ outcome, ack }, i) => {
    const controlNumber = first + i;
    const version = outcome.detail.version ?? '004010';
    const x12 = wrapSet('855', purchaseOrderAck(ack), { profile, partner, version, controlNumber, date: received.at });
    return { ...out, type: '855' as const, x12, controlNumber, orderId: outcome.orderId ?? null, poNumber: outcome.poNumber, deliver: true };
  });
  await recordOutbounds(tx, sent);
}

/** The interchange's answer, written (every 997 and the TA1 in one interchange back) but not yet recorded. */
export interface Reply997 {
  /** With the answer's acknowledgments listed before the last transaction: one a group, 40,000 for as many groups. */
  answer?: AckInterchange & { encoded: { raw: Buffer; sha256: string }; acknowledgments: Acknowledged['acknowledgments'] };
  ta1?: Ta1Verdict;
}

/**
 * Writes the interchange's answer outside any transaction: its control numbers are reserved in a short one of their
 * own first, so the writing (a second or more for 40,000 groups) never holds the database's write lock. A crash
 * before the answer is recorded leaves those numbers unused, a gap X12 allows; a resend reserves new ones.
 */
export async function writeReply(deps: IntakeDeps, received: Received, checked: Checked, verdicts: readonly GroupVerdict[]): Promise<Reply997> {
  const { envelope } = checked;
  // A TA1 when the partner asks for one (ISA14 1) or the envelope is rejected; none when no TA105 code fits.
  const interchange = ta1Verdict(checked.envelopeIssues);
  const ta1 = interchange !== undefined && (interchange.code === 'R' || envelope.isa[13] === '1') ? interchange : undefined;
  if (verdicts.length === 0 && ta1 === undefined) return {};
  const needed = await ackControlNumbersNeededPaced(verdicts);
  const first = await deps.db.transaction().execute((tx) => deps.partners.reserveControlNumbers(tx, received.orgId, needed));
  const written = await write997Interchange(envelope, verdicts, { controlNumber: first, ourIdentity: checked.ours, date: received.at, ...(ta1 === undefined ? {} : { ta1 }) });
  if (written === undefined) return ta1 === undefined ? {} : { ta1 };
  // Encoded and hashed here, between yields, so the settling transaction does neither to megabytes (40,000 groups' 997s).
  const raw = Buffer.from(written.x12, 'utf8');
  const acknowledgments: Acknowledged['acknowledgments'] = [];
  for (const g of written.groups) {
    acknowledgments.push({ group: echoText(g.group), code: g.code as 'A' | 'E' | 'P' | 'R' });
    await pace();
  }
  const answer = { ...written, encoded: { raw, sha256: await sha256HexPaced(raw) }, acknowledgments };
  return { answer, ...(ta1 === undefined ? {} : { ta1 }) };
}

/** Records the written answer, in the last transaction (the one that settles the call). */
export async function acknowledge(tx: Tx, received: Received, checked: Checked, verdicts: readonly GroupVerdict[], { answer, ta1 }: Reply997): Promise<Acknowledged> {
  if (answer === undefined) return { acknowledgments: [] };
  // Kept and answered inline, never delivered: the partner's own call gets it.
  const type = verdicts.length > 0 ? ('997' as const) : ('TA1' as const);
  const out = { orgId: received.orgId, partner: checked.partner, relatedId: received.messageId, at: received.at };
  const id = await recordOutbound(tx, { ...out, type, x12: answer.x12, encoded: answer.encoded, controlNumber: answer.controlNumber, orderId: null, poNumber: null, deliver: false });
  return {
    acknowledgments: answer.acknowledgments,
    reply: replyView(id, answer.controlNumber, answer.x12),
    ...(ta1 === undefined ? {} : { interchangeAck: { code: ta1.code, note: ta1.noteCode } }),
  };
}

/** A TA1 alone in its interchange, addressed back to the sender and recorded like the reply (a resend's conflict). */
export async function sendTa1(tx: Tx, received: Received, partner: TradingPartner, isa: readonly string[], ours: Party, verdict: Ta1Verdict, controlNumber: number): Promise<Reply> {
  const x12 = buildTa1({ isa, code: verdict.code, noteCode: verdict.noteCode, controlNumber, ourIdentity: ours, date: received.at });
  const id = await recordOutbound(tx, { orgId: received.orgId, partner, relatedId: received.messageId, at: received.at, type: 'TA1', x12, controlNumber, orderId: null, poNumber: null, deliver: false });
  return replyView(id, controlNumber, x12);
}
