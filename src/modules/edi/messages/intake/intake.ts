import type { Tx } from '../../../../platform/db/schema.js';
import type { Settle } from '../../../../platform/operations/operation.js';
import type { StoredAnswer } from '../messages.schemas.js';
import { decodeInterchange } from '../interchange-bytes.js';
import { inboundValidation } from '../../partners/partners.service.js';
import { assess997Async, type ParseResult, parseX12 } from '../../x12/index.js';
import { acknowledge } from './acknowledge.js';
import { readDocuments } from './read-documents.js';
import { type IntakeDeps, markFailed, type Received, storeReceived } from './received.js';
import { answerResend } from './resend.js';
import { type Checked, claimControlNumber, screen, winnerOf } from './screen.js';
import { settleRefusal, settleTaken } from './settle.js';
import { takeSeveral } from './several.js';

/**
 * POST /v1/edi as a pipeline of steps with one job each: receive (store, split interchanges), screen (partner,
 * receiver, resends, control numbers), read documents (850 -> orders), acknowledge (997/TA1/855), settle (the answer).
 */
export class InterchangeIntake {
  constructor(private readonly deps: IntakeDeps) {}

  async receive(orgId: string, raw: Buffer, settleCall: Settle): Promise<StoredAnswer> {
    const received = await storeReceived(this.deps, orgId, raw, settleCall);
    try {
      const text = decodeInterchange(raw);
      const first = parseX12(text);
      if (first.next === undefined) return await this.takeOne(received, first);
      return await takeSeveral(this.deps, received, raw, text, first, (child, parsed) => this.takeOne(child, parsed));
    } catch (err) {
      // The body stays stored; marking it failed is best effort on top of the error already being answered.
      await markFailed(this.deps, received).catch(() => undefined);
      throw err;
    }
  }

  private async takeOne(received: Received, parsed: ParseResult): Promise<StoredAnswer> {
    const screening = await screen(this.deps, received, parsed);
    if (screening.kind === 'refused') return settleRefusal(this.deps, received, screening.refusal, screening.envelope);
    if (screening.kind === 'resend') return answerResend(this.deps, received, screening.resend);
    const { checked } = screening;
    const answer = await this.deps.db.transaction().execute((tx) => this.take(tx, received, checked));
    // undefined: a resend raced this one and won the key, so this one is answered as the resend it turned out to be.
    return answer ?? answerResend(this.deps, received, await winnerOf(this.deps, received, checked));
  }

  /** One transaction: claims the partner's ISA13, reads the documents, acknowledges them and settles the answer. */
  private async take(tx: Tx, received: Received, checked: Checked): Promise<StoredAnswer | undefined> {
    if (!(await claimControlNumber(tx, received, checked))) return undefined;
    // The partner's validation level: lenient takes a set whose findings do not stop it being read (AK5 E).
    const verdicts = await assess997Async(checked.envelope, checked.issues, { level: inboundValidation(checked.partner) });
    const { documents, owed } = await readDocuments(tx, this.deps, received, checked, verdicts);
    const acknowledged = await acknowledge(tx, this.deps, received, checked, verdicts, owed);
    return settleTaken(this.deps, tx, received, checked, verdicts, documents, acknowledged);
  }
}
