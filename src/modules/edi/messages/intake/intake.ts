import { setImmediate } from 'node:timers/promises';
import { sharedBytes } from '../../../../platform/core/cpu-pool.js';
import { holdLost } from '../../../../platform/instances/instance-liveness.js';
import type { Settle } from '../../../../platform/operations/operation.js';
import type { DocumentView, StoredAnswer } from '../messages.schemas.js';
import { decodeInterchange } from '../interchange-bytes.js';
import * as messages from '../messages.repository.js';
import { inboundValidation } from '../../partners/partners.service.js';
import { assess997Async, type Examined, type ExaminedBody, hydrate } from '../../x12/index.js';
import { acknowledge, writeReply } from './acknowledge.js';
import { documentsTaken, judgement, readDocuments, type SetEntry, setsOf } from './read-documents.js';
import { type IntakeDeps, markFailed, type Received, storeReceived, whileHeld } from './received.js';
import { answerResend } from './resend.js';
import { type Checked, claimControlNumber, screen, setTypes, winnerOf } from './screen.js';
import { prepareTaken, settleRefusal, settleTaken } from './settle.js';
import { takeSeveral } from './several.js';
import { sliceSets } from './slices.js';

/** The worker module that parses and checks a body (examine.worker.ts, compiled). */
const EXAMINE_WORKER = new URL('./examine.worker.js', import.meta.url);

/**
 * POST /v1/edi as a pipeline of steps with one job each: receive (store; parse and check in a worker thread), screen
 * (partner, receiver, resends, control numbers), read documents (850 -> orders) and send the 855s owed, slice by slice,
 * each slice its own short transaction, then acknowledge (997/TA1) and settle (the answer) in a last one.
 */
export class InterchangeIntake {
  constructor(private readonly deps: IntakeDeps) {}

  async receive(orgId: string, raw: Buffer, settleCall: Settle): Promise<StoredAnswer> {
    // Refused before the body is stored when every worker is busy and the queue is full: a 503 to retry, nothing kept.
    this.deps.cpu.admit();
    const received = await storeReceived(this.deps, orgId, raw, settleCall);
    try {
      const body = await this.deps.cpu.run<ExaminedBody>(EXAMINE_WORKER, 'examine', await sharedBytes(raw));
      const text = decodeInterchange(raw);
      const [only] = body.interchanges;
      if (only !== undefined && body.interchanges.length === 1 && !body.tooMany) return await this.takeOne(received, await hydrate(text, only));
      return await takeSeveral(this.deps, received, raw, text, body, (child, examined) => this.takeOne(child, examined));
    } catch (err) {
      // The body stays stored; marking it failed is best effort on top of the error already being answered.
      await markFailed(this.deps, received).catch(() => undefined);
      throw err;
    }
  }

  private async takeOne(received: Received, examined: Examined): Promise<StoredAnswer> {
    const screening = await screen(this.deps, received, examined);
    if (screening.kind === 'refused') return settleRefusal(this.deps, received, screening.refusal, screening.envelope);
    if (screening.kind === 'resend') return answerResend(this.deps, received, screening.resend, (original, checked) => this.resume(original, checked));
    const { checked } = screening;
    const entries = await setsOf(checked.envelope);
    const type = await setTypes(checked.envelope);
    // Registered before the lease is written: another process must never see a holder it cannot find.
    await this.deps.instances.start();
    // From the claim (whose commit may be in doubt when the connection drops) to the answer, the lease is this call's:
    // should the call fail, it is released for a resend to finish the interchange.
    const taken = await whileHeld(this.deps, received, async () => {
      const claimed = await this.deps.db.transaction().execute(async (tx) => {
        if (!(await claimControlNumber(tx, received, checked))) return false;
        const identity = { partner_id: checked.partner.id, control_number: checked.envelope.controlNumber, type };
        await messages.updateMessage(tx, received.orgId, received.messageId, { ...identity, sets_total: entries.length, lease_owner: this.deps.instances.id, updated_at: this.now() });
        return true;
      });
      return claimed ? await this.take(received, checked, entries, []) : undefined;
    });
    if (taken !== undefined) return taken;
    // Not claimed: a resend raced this one and won the key, so this one is answered as the resend it turned out to be.
    return answerResend(this.deps, received, await winnerOf(this.deps, received, checked), (original, c) => this.resume(original, c));
  }

  /** Finishes an interchange a stopped process left part taken: the sets after those its documents record. */
  private resume(original: Received, checked: Checked): Promise<StoredAnswer> {
    // The caller took the lease: released again should this call fail before the answer.
    return whileHeld(this.deps, original, async () => {
      const entries = await setsOf(checked.envelope);
      const rows = await messages.findDocuments(this.deps.db, original.orgId, original.messageId);
      return this.take(original, checked, entries, documentsTaken(rows, checked, entries));
    });
  }

  /**
   * Reads the documents of the sets after those already `taken`, a slice at a time (each slice its own transaction:
   * its orders, documents and 855s commit together, and other requests' writes go between slices), then writes the
   * 997s and settles the answer in one last transaction.
   */
  private async take(received: Received, checked: Checked, entries: readonly SetEntry[], taken: DocumentView[]): Promise<StoredAnswer> {
    // The partner's validation level: lenient takes a set whose findings do not stop it being read (AK5 E).
    const verdicts = await assess997Async(checked.envelope, checked.issues, { level: inboundValidation(checked.partner) });
    const judged = await judgement(checked, verdicts);
    const documents = taken;
    for (const slice of sliceSets(entries.slice(taken.length))) {
      const read = await this.deps.db.transaction().execute(async (tx) => {
        const done = await readDocuments(tx, this.deps, received, checked, judged, slice);
        // A process judged dead (heartbeats stalled past the TTL) lost the interchange to a resend: its slice rolls back.
        if (!(await messages.touchHeld(tx, received.orgId, received.messageId, this.deps.instances.id, this.now()))) {
          throw holdLost(`EDI message ${received.messageId}`);
        }
        return done;
      });
      for (const d of read) documents.push(d);
      await setImmediate();
    }
    const reply = await writeReply(this.deps, received, checked, verdicts);
    // The answer's loops over every document run here, yielding: the last transaction only records it.
    const prepared = await prepareTaken(received, checked, verdicts, documents, reply.answer?.acknowledgments ?? []);
    return this.deps.db.transaction().execute(async (tx) => {
      const acknowledged = await acknowledge(tx, received, checked, verdicts, reply);
      return settleTaken(this.deps, tx, received, checked, prepared, acknowledged);
    });
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}
