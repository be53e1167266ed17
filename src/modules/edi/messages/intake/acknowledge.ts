import { setImmediate } from 'node:timers/promises';
import type { Tx } from '../../../../platform/db/schema.js';
import type { InterchangeAck, SubmitResult } from '../messages.schemas.js';
import { purchaseOrderAck } from '../outbound-sets.js';
import { recordOutbound, recordOutbounds, wrapSet } from '../outbound.js';
import type { TradingPartner } from '../../partners/partners.service.js';
import { buildTa1, echoText, type GroupVerdict, type Party, type Ta1Code, ta1Verdict, write997s } from '../../x12/index.js';
import type { Owed } from './read-documents.js';
import type { IntakeDeps, Received } from './received.js';
import type { Checked } from './screen.js';

// Step 4 of the intake, acknowledge: the 997s, the TA1 and the 855s owed at receipt, each with its control number.

/** 997s recorded per statement batch, with a yield between: one large body never starves other requests. */
const BATCH = 1000;

/** TA104/TA105 of a TA1 to send. */
export interface Ta1Verdict {
  code: Ta1Code;
  noteCode: string;
}

export interface Acknowledged {
  acknowledgments: SubmitResult['acknowledgments'];
  interchangeAck?: InterchangeAck;
}

/** Writes and records everything the interchange is answered with, in the transaction that took its documents. */
export async function acknowledge(tx: Tx, deps: IntakeDeps, received: Received, checked: Checked, verdicts: readonly GroupVerdict[], owed: readonly Owed[]): Promise<Acknowledged> {
  const { envelope, partner, profile } = checked;
  // A TA1 when the partner asks for one (ISA14 1) or the envelope is rejected; none when no TA105 code fits.
  const interchange = ta1Verdict(checked.envelopeIssues);
  const ta1 = interchange !== undefined && (interchange.code === 'R' || envelope.isa[13] === '1') ? interchange : undefined;
  // Control numbers are taken last, so the counter row is locked only for the few writes below.
  const needed = verdicts.length + owed.length + (ta1 === undefined ? 0 : 1);
  let next = needed === 0 ? 0 : await deps.partners.reserveControlNumbers(tx, received.orgId, needed);
  const take = (): number => next++;
  const acks = await write997s(envelope, verdicts, {
    nextControlNumbers: () => {
      const n = take();
      return { interchange: n, group: n };
    },
    ourIdentity: checked.ours,
    date: received.at,
  });
  const out = { orgId: received.orgId, partner, relatedId: received.messageId, at: received.at };
  const acknowledgments: SubmitResult['acknowledgments'] = [];
  for (let i = 0; i < acks.length; i += BATCH) {
    const slice = acks.slice(i, i + BATCH);
    const ids = await recordOutbounds(
      tx,
      slice.map((ack) => ({ ...out, type: '997' as const, x12: ack.x12, controlNumber: ack.interchangeControlNumber, orderId: null, poNumber: null, deliver: false })),
    );
    slice.forEach((ack, j) => acknowledgments.push({ group: echoText(ack.groupControlNumber), code: ack.code, message_id: ids[j] as string, x12: ack.x12 }));
    await setImmediate();
  }
  const sent = owed.map(({ outcome, ack }) => {
    const controlNumber = take();
    const version = outcome.detail.version ?? '004010';
    const x12 = wrapSet('855', purchaseOrderAck(ack), { profile, partner, version, controlNumber, date: received.at });
    return { ...out, type: '855' as const, x12, controlNumber, orderId: outcome.orderId ?? null, poNumber: outcome.poNumber, deliver: true };
  });
  await recordOutbounds(tx, sent);
  if (ta1 === undefined) return { acknowledgments };
  return { acknowledgments, interchangeAck: await sendTa1(tx, received, partner, envelope.isa, checked.ours, ta1, take()) };
}

/** Builds a TA1 addressed back to the sender and records it like a 997: kept and answered inline, not delivered. */
export async function sendTa1(tx: Tx, received: Received, partner: TradingPartner, isa: readonly string[], ours: Party, verdict: Ta1Verdict, controlNumber: number): Promise<InterchangeAck> {
  const x12 = buildTa1({ isa, code: verdict.code, noteCode: verdict.noteCode, controlNumber, ourIdentity: ours, date: received.at });
  const id = await recordOutbound(tx, { orgId: received.orgId, partner, relatedId: received.messageId, at: received.at, type: 'TA1', x12, controlNumber, orderId: null, poNumber: null, deliver: false });
  return { code: verdict.code, note: verdict.noteCode, message_id: id, x12 };
}
