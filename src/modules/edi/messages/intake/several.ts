import type { EdiError, InterchangeEntry, StoredAnswer } from '../messages.schemas.js';
import { MAX_INTERCHANGES_PER_BODY } from '../interchange-bytes.js';
import { bytesOf, combine, entryOf, failure } from '../several-interchanges.js';
import { type Examined, type ExaminedBody, hydrate } from '../../x12/index.js';
import { type IntakeDeps, markFailed, type Received, storeReceived } from './received.js';
import { messageStatus, settle, type Settled } from './settle.js';

/** Takes one interchange already stored as `child` and answers it as if it had come alone. */
type TakeOne = (child: Received, examined: Examined) => Promise<StoredAnswer>;

/** A body of several interchanges: each is stored as its own message and answered as if it had come alone. */
export async function takeSeveral(deps: IntakeDeps, received: Received, raw: Buffer, text: string, body: ExaminedBody, takeOne: TakeOne): Promise<StoredAnswer> {
  if (body.tooMany) {
    const message = `the body carries more than ${MAX_INTERCHANGES_PER_BODY} interchanges; send at most ${MAX_INTERCHANGES_PER_BODY} in one request`;
    const errors: EdiError[] = [{ code: 'too_many_interchanges', message, level: 'interchange' }];
    return deps.db.transaction().execute((tx) => settle(deps, tx, received, { status: 'rejected' }, errors, failure('interchange_invalid', message, { message_id: received.messageId, errors })));
  }
  const entries: InterchangeEntry[] = [];
  const partnerIds = new Set<string | null>();
  for (const wire of body.interchanges) {
    const child = await storeReceived(deps, received.orgId, bytesOf(raw, text, wire.start, wire.end), received.settleCall, received.messageId);
    // Rebuilt one at a time: the body's interchanges are never all held as objects at once.
    const examined = await hydrate(text, wire);
    const { parsed } = examined;
    const answer = await takeOne(child, examined).catch(async (err: unknown) => {
      await markFailed(deps, child);
      throw err;
    });
    const envelope = parsed.ok ? parsed.interchange : parsed.envelope;
    const entry = entryOf(child.messageId, envelope?.controlNumber ?? null, answer);
    partnerIds.add(entry.result?.partner.id ?? null);
    entries.push(entry);
  }
  const answer = await combine(received.messageId, entries);
  const documents = entries.flatMap((e) => e.result?.documents ?? []);
  const refused = entries.some((e) => e.error !== undefined);
  const status = await messageStatus(documents, refused);
  const types = [...new Set(entries.flatMap((e) => e.result?.documents.map((d) => d.type) ?? []))].join(',');
  const [partnerId] = partnerIds;
  const settled: Settled = {
    status: refused && status === 'accepted' ? 'partial' : status,
    type: types === '' ? null : types,
    ...(partnerIds.size === 1 && partnerId !== undefined ? { partner_id: partnerId } : {}),
  };
  // In a transaction so that the outcome recorded for an idempotency key commits with the body's row.
  return deps.db.transaction().execute((tx) => settle(deps, tx, received, settled, [], answer, { announce: false }));
}
