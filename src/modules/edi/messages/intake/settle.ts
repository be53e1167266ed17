import { pace } from '../../../../platform/core/pacer.js';
import type { Tx } from '../../../../platform/db/schema.js';
import { announceEvent } from '../../../../platform/outbox/outbox.js';
import { ERROR_STATUS } from '../../../../platform/core/errors.js';
import type { DocumentView, EdiError, MessageStatus, StoredAnswer, SubmitResult } from '../messages.schemas.js';
import * as messages from '../messages.repository.js';
import { failure } from '../several-interchanges.js';
import { listErrors, summarize, toEdiError } from '../x12-errors.js';
import type { GroupVerdict, PartialInterchange } from '../../x12/index.js';
import { bounded } from './bounds.js';
import type { Acknowledged } from './acknowledge.js';
import type { IntakeDeps, Received } from './received.js';
import { type Checked, type Refusal, setTypes } from './screen.js';

// Step 5 of the intake, settle: what the message row and the caller's answer say.

/** The message row fields an answer settles. */
export type Settled = Partial<Pick<messages.MessageRow, 'partner_id' | 'type' | 'control_number' | 'related_id' | 'lease_owner'>> & { status: MessageStatus };

/** Accepted, partial or rejected, from the documents' statuses; paced (40,000 documents). */
export async function messageStatus(documents: readonly DocumentView[], hasIssues: boolean): Promise<MessageStatus> {
  if (documents.length === 0) return hasIssues ? 'rejected' : 'accepted';
  let taken = 0;
  let rejected = 0;
  for (const d of documents) {
    if (d.status === 'accepted' || d.status === 'received' || d.status === 'test') taken++;
    else if (d.status === 'rejected') rejected++;
    await pace();
  }
  if (taken === documents.length) return 'accepted';
  return rejected === documents.length ? 'rejected' : 'partial';
}

/**
 * Writes the outcome onto the message row (the answer included, for resends) and returns the answer, and announces
 * `edi.message.received` to the org's webhooks in the same transaction (not for the body of several interchanges:
 * each of them is announced). A success is also settled as the call's answer there. Refusals are settled by the
 * invoker after the fact; a retry after a crash finds the interchange's stored answer.
 */
export async function settle(deps: IntakeDeps, tx: Tx, received: Received, settled: Settled, errors: readonly EdiError[], answer: StoredAnswer, o: { announce: boolean } = { announce: true }): Promise<StoredAnswer> {
  const now = deps.clock.now();
  const httpStatus = answer.kind === 'ok' ? 200 : ERROR_STATUS[answer.code];
  await messages.updateMessage(tx, received.orgId, received.messageId, {
    ...settled,
    errors: errors.length === 0 ? null : JSON.stringify(errors),
    http_status: httpStatus,
    result: JSON.stringify(answer),
    updated_at: now.toISOString(),
  });
  if (o.announce) {
    const data = {
      message_id: received.messageId,
      direction: 'inbound',
      type: settled.type ?? null,
      status: settled.status,
      http_status: httpStatus,
      partner_id: settled.partner_id ?? null,
      control_number: settled.control_number ?? null,
      parent_message_id: received.parentId ?? null,
      received_at: received.at.toISOString(),
    };
    await announceEvent(tx, { type: 'edi.message.received', orgId: received.orgId, at: now, data });
  }
  // An interchange of a several-interchange body is not the call's outcome: the body's combined answer is.
  if (answer.kind === 'ok' && received.parentId === undefined) await received.settleCall(tx, answer.body);
  return answer;
}

/** The answer to an interchange refused before anything in it was read. */
export function settleRefusal(deps: IntakeDeps, received: Received, refusal: Refusal, envelope: PartialInterchange | undefined): Promise<StoredAnswer> {
  return deps.db.transaction().execute((tx) => refuse(deps, tx, received, refusal, envelope));
}

async function refuse(deps: IntakeDeps, tx: Tx, received: Received, refusal: Refusal, envelope: PartialInterchange | undefined): Promise<StoredAnswer> {
  const identity = envelope === undefined ? {} : { control_number: envelope.controlNumber, type: await setTypes(envelope) };
  const details = (errors: EdiError[]) => ({ message_id: received.messageId, errors });
  switch (refusal.reason) {
    case 'not_x12': {
      const errors = refusal.issues.map(toEdiError);
      const message = `not an X12 interchange: ${errors[0]?.message ?? 'it must start with ISA'}; send one interchange, ISA ... IEA (kept as message ${received.messageId})`;
      return settle(deps, tx, received, { status: 'not_x12' }, errors, failure('invalid_input', message, details(errors)));
    }
    case 'unreadable_isa': {
      const errors = refusal.issues.map(toEdiError);
      return settle(deps, tx, received, { status: 'rejected' }, errors, failure('interchange_invalid', summarize(errors.length, errors, 'the interchange header (ISA)'), details(errors)));
    }
    case 'unknown_partner': {
      const message = `unknown trading partner ${refusal.sender} (ISA05/ISA06)`;
      const errors: EdiError[] = [{ code: 'unknown_partner', message, level: 'interchange', position: 1, segment_id: 'ISA', element: 6, value: refusal.senderId }];
      return settle(deps, tx, received, { status: 'rejected', partner_id: null, ...identity }, errors, failure('unknown_partner', message, details(errors)));
    }
    case 'wrong_receiver': {
      const message = `ISA07/ISA08 ${refusal.receiver} is not this organisation's interchange id ${refusal.ours}`;
      const errors: EdiError[] = [{ code: 'wrong_receiver', message, level: 'interchange', position: 1, segment_id: 'ISA', element: 8, value: refusal.receiverId }];
      return settle(deps, tx, received, { status: 'rejected', partner_id: refusal.partner.id, ...identity }, errors, failure('wrong_receiver', message, details(errors)));
    }
  }
}

/** What settleTaken answers, worked out before the last transaction: over 40,000 documents its loops yield. */
export interface TakenAnswer {
  status: MessageStatus;
  /** Whether the call is answered 200 (see settleTaken). */
  taken: boolean;
  /** The answer's lists, capped; the reply and the TA1 verdict are added in the last transaction. */
  result: SubmitResult;
}

/** The answer to an interchange whose documents were read, its 997s written (`acknowledgments`) but not yet recorded. */
export async function prepareTaken(received: Received, checked: Checked, verdicts: readonly GroupVerdict[], documents: DocumentView[], acknowledgments: Acknowledged['acknowledgments']): Promise<TakenAnswer> {
  const { issues, partner } = checked;
  const status = await messageStatus(documents, issues.length > 0);
  const result = await bounded(
    { message_id: received.messageId, partner: { id: partner.id, name: partner.name }, status: status === 'accepted' || status === 'partial' ? status : 'rejected', acknowledgments, documents },
    issues,
  );
  let accepted = false;
  for (const g of verdicts) {
    if ((accepted = g.sets.some((s) => s.accepted))) break;
    await pace();
  }
  for (const d of accepted ? [] : documents) {
    if ((accepted = d.status === 'received')) break;
    await pace();
  }
  return { status, taken: accepted || (documents.length === 0 && issues.length === 0), result };
}

/**
 * The answer to an interchange whose documents were read and acknowledged. The status rule: 200 when the 997s accept
 * at least one transaction set (each set's verdict is in `documents`, the X12 findings in `errors`), or there was
 * nothing to accept and nothing wrong; 422 when no set was accepted. The message row says accepted, partial or rejected.
 */
export async function settleTaken(deps: IntakeDeps, tx: Tx, received: Received, checked: Checked, prepared: TakenAnswer, acked: Acknowledged): Promise<StoredAnswer> {
  const { envelope, issues, partner } = checked;
  const { errors, omitted, ...lists } = prepared.result;
  const result: SubmitResult = {
    ...lists,
    ...(acked.reply === undefined ? {} : { reply: acked.reply }),
    ...(acked.interchangeAck === undefined ? {} : { interchange_ack: acked.interchangeAck }),
    ...(errors === undefined ? {} : { errors }),
    ...(omitted === undefined ? {} : { omitted }),
  };
  const answer: StoredAnswer = prepared.taken
    ? { kind: 'ok', body: result }
    : failure('interchange_rejected', `no transaction set was accepted: ${summarize(issues.length, result.errors ?? [], `interchange ${envelope.controlNumber}`)}`, result);
  const settled: Settled = { status: prepared.status, partner_id: partner.id, control_number: envelope.controlNumber, type: await setTypes(envelope), lease_owner: null };
  return settle(deps, tx, received, settled, listErrors(issues), answer);
}
