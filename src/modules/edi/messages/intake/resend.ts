import { type EdiError, type StoredAnswer, storedAnswerSchema } from '../messages.schemas.js';
import * as messages from '../messages.repository.js';
import { failure } from '../several-interchanges.js';
import { TA1_NOTES } from '../../x12/index.js';
import { sendTa1 } from './acknowledge.js';
import { type IntakeDeps, type Received, whileHeld } from './received.js';
import { type Checked, type Resend, setTypes } from './screen.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../../../../platform/core/errors.js';
import { settle } from './settle.js';

/** Finishes taking an interchange that a stopped process left part taken, and returns its answer. */
export type Resume = (original: Received, checked: Checked) => Promise<StoredAnswer>;

/**
 * The same ISA13 from the same partner: the same bytes get the stored answer, different bytes a 409 with a TA1 R 025.
 * When the original was left part taken (its process stopped between two slices), the resend finishes it first.
 */
export async function answerResend(deps: IntakeDeps, received: Received, resend: Resend, resume: Resume): Promise<StoredAnswer> {
  const { seen, partner, ours, envelope } = resend;
  const settled = { partner_id: partner.id, control_number: seen.control_number, related_id: seen.message_id, type: await setTypes(envelope) };
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
      return settle(deps, tx, received, { status: 'conflict', ...settled }, errors, failure('duplicate_control_number', message, details));
    });
  }
  const original = await messages.findMessage(deps.db, received.orgId, seen.message_id);
  if (original === undefined) throw new Error(`interchange ${seen.control_number} was claimed by message ${seen.message_id}, which is not recorded`);
  const result = original.result ?? (await finishOriginal(deps, original, resend, resume));
  const stored = storedAnswerSchema.parse(JSON.parse(result));
  // In a transaction so that the outcome recorded for an idempotency key commits with the resend's row.
  return deps.db.transaction().execute((tx) => settle(deps, tx, received, { status: 'duplicate', ...settled }, [], stored));
}

/** How long a resend waits for an original another process is taking, before answering 503 with Retry-After. */
const WAIT_FOR_ORIGINAL_MS = 30_000;

/**
 * The stored answer of an original not answered yet: the process taking it finishes it while this call waits; one
 * that stopped (its lease ran out) is finished by this call. 503 with Retry-After when the wait runs out.
 */
async function finishOriginal(deps: IntakeDeps, original: messages.StoredMessage, resend: Resend, resume: Resume): Promise<string> {
  const started = Date.now();
  await deps.instances.start();
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const now = deps.clock.now();
    const row = await messages.findMessage(deps.db, original.org_id, original.id);
    if (row?.result != null) return row.result;
    // A takeover whose commit is in doubt (the connection dropped) is released again: nobody would finish it otherwise.
    const took = await whileHeld(deps, { orgId: original.org_id, messageId: original.id }, () =>
      deps.leases.take(
        () => messages.takeLease(deps.db, original.org_id, original.id, deps.instances.id, deps.instances.liveIds(), now.toISOString()),
        (taken) => (taken ? original.id : undefined),
      ),
    );
    if (took) break;
    if (Date.now() - started > WAIT_FOR_ORIGINAL_MS) {
      // Its holder still lives: it answers when done, or its heartbeats stop and the next resend finishes it.
      const seconds = Math.max(1, Math.ceil(deps.instances.ttlMs / 1000));
      const message = `interchange ${resend.seen.control_number} is still being taken (message ${original.id}); retry in ${seconds} s for its answer`;
      throw new AppError('unavailable', message, { message_id: original.id }, { 'retry-after': String(seconds) });
    }
    await sleep(pause);
  }
  if (resend.checked === undefined) throw new Error('a resend of the same bytes is screened in full');
  // The original's own call is gone: its answer is recorded on its message, and this call's answer is settled as the resend's.
  const taking: Received = {
    orgId: original.org_id,
    messageId: original.id,
    sha: original.sha256,
    at: new Date(original.created_at),
    settleCall: () => Promise.resolve(),
    ...(original.parent_id === null ? {} : { parentId: original.parent_id }),
  };
  await resume(taking, resend.checked);
  const finished = await messages.findMessage(deps.db, original.org_id, original.id);
  if (finished?.result == null) throw new Error(`message ${original.id} was finished without an answer`);
  return finished.result;
}
