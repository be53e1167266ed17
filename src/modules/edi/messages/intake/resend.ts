import { type EdiError, type StoredAnswer, storedAnswerSchema } from '../messages.schemas.js';
import * as messages from '../messages.repository.js';
import { failure } from '../several-interchanges.js';
import { TA1_NOTES } from '../../x12/index.js';
import { sendTa1 } from './acknowledge.js';
import type { IntakeDeps, Received } from './received.js';
import { type Resend, setTypes } from './screen.js';
import { settle } from './settle.js';

/** The same ISA13 from the same partner: the same bytes get the stored answer, different bytes a 409 with a TA1 R 025. */
export async function answerResend(deps: IntakeDeps, received: Received, { seen, partner, ours, envelope }: Resend): Promise<StoredAnswer> {
  const settled = { partner_id: partner.id, control_number: seen.control_number, related_id: seen.message_id, type: setTypes(envelope) };
  if (seen.sha256 !== received.sha) {
    const message =
      `interchange ${seen.control_number} from ${partner.name} was already received with different content ` +
      `(message ${seen.message_id}); send a changed interchange with a new ISA13`;
    const errors: EdiError[] = [{ code: 'duplicate_control_number', message, level: 'interchange', position: 1, segment_id: 'ISA', element: 13, value: seen.control_number }];
    // The TA1 (R 025) and the 409 are recorded together: a counter number is never spent on an unrecorded TA1.
    return deps.db.transaction().execute(async (tx) => {
      const controlNumber = await deps.partners.reserveControlNumbers(tx, received.orgId, 1);
      const ta1 = { code: 'R' as const, noteCode: TA1_NOTES.duplicateControlNumber };
      const reply = await sendTa1(tx, received, partner, envelope.isa, ours, ta1, controlNumber);
      const details = { message_id: received.messageId, original_message_id: seen.message_id, interchange_ack: { code: ta1.code, note: ta1.noteCode }, reply };
      return settle(deps, tx, received, { status: 'conflict', ...settled }, errors, failure('conflict', message, details));
    });
  }
  const original = await messages.findMessage(deps.db, received.orgId, seen.message_id);
  const stored = storedAnswerSchema.parse(JSON.parse(original?.result ?? 'null'));
  // In a transaction so that the outcome recorded for an idempotency key commits with the resend's row.
  return deps.db.transaction().execute((tx) => settle(deps, tx, received, { status: 'duplicate', ...settled }, [], stored));
}
