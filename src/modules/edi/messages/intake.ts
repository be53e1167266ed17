import type { Clock } from '../../../platform/core/clock.js';
import type { Db, Executor, Tx } from '../../../platform/db/schema.js';
import { ERROR_STATUS } from '../../../platform/core/errors.js';
import { newId } from '../../../platform/core/ids.js';
import type { Settle } from '../../../platform/operations/operation.js';
import {
  type DocumentDetail,
  type DocumentStatus,
  type DocumentView,
  type EdiError,
  type InterchangeAck,
  type InterchangeEntry,
  type MessageStatus,
  type StoredAnswer,
  storedAnswerSchema,
  type SubmitResult,
} from './messages.schemas.js';
import { decodeInterchange, sha256Hex } from './interchange-bytes.js';
import * as messages from './messages.repository.js';
import { takePurchaseOrder, type OrderIntakeDeps, type PurchaseOrderOutcome } from './order-intake.js';
import { type PoAcknowledgment, purchaseOrderAck } from './outbound-sets.js';
import { recordOutbound, recordOutbounds, wrapSet } from './outbound.js';
import type { EdiPartnersService, OurInterchangeProfile, TradingPartner } from '../partners/partners.service.js';
import { readPurchaseOrder } from './purchase-order.js';
import { setImmediate } from 'node:timers/promises';
import { bytesOf, combine, entryOf, failure, MAX_INTERCHANGES_PER_BODY, readInterchanges } from './several-interchanges.js';
import { listErrors, summarize, toEdiError } from './x12-errors.js';
import {
  assess997Async,
  write997s,
  buildTa1,
  checkInterchange,
  echoText,
  type FunctionalGroup,
  type GroupVerdict,
  type ParseResult,
  parseX12,
  type PartialInterchange,
  type Party,
  readSegments,
  type SetVerdict,
  TA1_NOTES,
  type Ta1Code,
  ta1Verdict,
  type TableUse,
  type TransactionSet,
  X12_CODES,
  type X12Issue,
} from '../x12/index.js';

interface IntakeDeps extends OrderIntakeDeps {
  db: Db;
  clock: Clock;
  partners: EdiPartnersService;
}

/** Documents or 997s written between two yields to the event loop, so one large body never starves other requests. */
const PACE = 500;

/**
 * Document rows go in per 100 or per 256 KB of stored detail (~13 KB for an 850 of 50 lines), whichever comes first:
 * rows held longer outlive young-generation collections and stay in the heap until the request ends.
 */
const DOCUMENT_BATCH = 100;
const DOCUMENT_BATCH_BYTES = 256 * 1024;

/** Lets the event loop run every PACE items: the database calls of a local SQLite settle without ever yielding. */
async function pace(i: number): Promise<void> {
  if (i % PACE === PACE - 1) await setImmediate();
}

/** Transaction sets the gateway takes in a non-FA group; anything else is rejected in the 997 (AK502 1). */
const SUPPORTED_SETS = new Set(['850']);

/** The message row fields an answer settles. */
type Settled = Partial<Pick<messages.MessageRow, 'partner_id' | 'type' | 'control_number' | 'related_id'>> & { status: MessageStatus };

/** An interchange that passed the envelope, partner and receiver checks, with every finding about it. */
interface Checked {
  envelope: PartialInterchange;
  issues: X12Issue[];
  partner: TradingPartner;
  profile: OurInterchangeProfile;
  /** The interchange id the partner addressed (ISA07/ISA08): the 997s and the TA1 come from it. */
  ours: Party;
  /** What parseX12 found: the interchange-level ones decide the TA1. */
  envelopeIssues: readonly X12Issue[];
  /** Notes per set (key: group and set control numbers), e.g. a check against the nearest version's table. */
  notes: Map<string, string[]>;
}

/** TA104/TA105 of a TA1 to send. */
interface Ta1Verdict {
  code: Ta1Code;
  noteCode: string;
}

/** The sets checked against another version's table, as notes for the JSON answer (a 997 has no place for free text). */
function fallbackNotes(tables: readonly TableUse[]): Map<string, string[]> {
  const notes = new Map<string, string[]>();
  for (const t of tables) {
    if (!t.fallback || t.note === undefined) continue;
    const key = JSON.stringify([t.groupControl, t.setControl]);
    notes.set(key, [...(notes.get(key) ?? []), t.note]);
  }
  return notes;
}

/** An 855 owed at receipt. */
interface Owed {
  outcome: PurchaseOrderOutcome;
  ack: PoAcknowledgment;
}

interface Received {
  orgId: string;
  messageId: string;
  sha: string;
  at: Date;
  /** The body's message, when this is one of several interchanges in it. */
  parentId?: string;
  /** Records the call's answer in the transaction of the step that settles it (the body's message only). */
  settleCall: Settle;
}

function unsupportedSets(envelope: PartialInterchange): X12Issue[] {
  return envelope.groups.flatMap((group) =>
    group.functionalId === 'FA'
      ? []
      : group.transactionSets
          .filter((set) => !SUPPORTED_SETS.has(set.id))
          .map((set): X12Issue => ({
            code: 'AK502:1',
            message: `transaction set ${echoText(set.id)} is not supported; the gateway takes 850`,
            level: 'set',
            position: set.position,
            segmentId: 'ST',
            element: 1,
            groupControl: group.controlNumber,
            setControl: set.controlNumber,
            value: set.id,
          })),
  );
}

/** With a bad ISA/IEA nothing is processed; each group gets a finding so its 997 rejects it (AK9 R, no AK905 code fits). */
function interchangeRejected(group: FunctionalGroup): X12Issue {
  return {
    code: 'interchange_rejected',
    message: 'the interchange envelope (ISA/IEA) is invalid, so nothing in it was processed',
    level: 'group',
    position: group.position,
    segmentId: 'GS',
    groupControl: group.controlNumber,
  };
}

/** The kinds of set an interchange carries, in order of appearance ("850" or "850,997"). */
function setTypes(envelope: PartialInterchange): string | null {
  const types = [...new Set(envelope.groups.flatMap((g) => g.transactionSets.map((s) => echoText(s.id))))].join(',');
  return types === '' ? null : types;
}

function messageStatus(documents: readonly DocumentView[], hasIssues: boolean): MessageStatus {
  if (documents.length === 0) return hasIssues ? 'rejected' : 'accepted';
  const taken = documents.filter((d) => d.status === 'accepted' || d.status === 'received' || d.status === 'test').length;
  if (taken === documents.length) return 'accepted';
  return documents.every((d) => d.status === 'rejected') ? 'rejected' : 'partial';
}

function documentView(type: string, set: TransactionSet, status: DocumentStatus, errors: readonly EdiError[], po?: { poNumber: string; orderId?: string }): DocumentView {
  return {
    type: echoText(type),
    control_number: echoText(set.controlNumber),
    status,
    ...(po === undefined || po.poNumber === '' ? {} : { po_number: echoText(po.poNumber) }),
    ...(po?.orderId === undefined ? {} : { order_id: po.orderId }),
    ...(errors.length === 0 ? {} : { errors: [...errors] }),
  };
}

/** POST /v1/edi: the body is stored before anything can fail, then each interchange in it is processed in one transaction. */
export class InterchangeIntake {
  constructor(private readonly deps: IntakeDeps) {}

  async receive(orgId: string, raw: Buffer, settleCall: Settle): Promise<StoredAnswer> {
    const at = this.deps.clock.now();
    const received: Received = { orgId, messageId: newId('msg', at), sha: sha256Hex(raw), at, settleCall };
    await messages.insertReceived(this.deps.db, this.receivedRow(received, raw), raw);
    try {
      const text = decodeInterchange(raw);
      const first = parseX12(text);
      return first.next === undefined ? await this.process(received, first) : await this.processSeveral(received, raw, text, first);
    } catch (err) {
      // The body stays stored; marking it failed is best effort on top of the error already being answered.
      await messages.updateMessage(this.deps.db, orgId, received.messageId, { status: 'failed', updated_at: this.deps.clock.now().toISOString() }).catch(() => undefined);
      throw err;
    }
  }

  /** A body of several interchanges: each is stored as its own message and answered as if it had come alone. */
  private async processSeveral(received: Received, raw: Buffer, text: string, first: ParseResult): Promise<StoredAnswer> {
    const found = readInterchanges(text, first);
    if (found === 'too_many') {
      const message = `the body carries more than ${MAX_INTERCHANGES_PER_BODY} interchanges; send at most ${MAX_INTERCHANGES_PER_BODY} in one request`;
      const errors: EdiError[] = [{ code: 'too_many_interchanges', message, level: 'interchange' }];
      return this.settle(this.deps.db, received, { status: 'rejected' }, errors, failure('unprocessable', message, { message_id: received.messageId, errors }));
    }
    const entries: InterchangeEntry[] = [];
    const partnerIds = new Set<string | null>();
    for (const { parsed, start, end } of found) {
      const bytes = bytesOf(raw, text, start, end);
      const at = this.deps.clock.now();
      const child: Received = { orgId: received.orgId, messageId: newId('msg', at), sha: sha256Hex(bytes), at, parentId: received.messageId, settleCall: received.settleCall };
      await messages.insertReceived(this.deps.db, this.receivedRow(child, bytes), bytes);
      const answer = await this.process(child, parsed).catch(async (err: unknown) => {
        await messages.updateMessage(this.deps.db, received.orgId, child.messageId, { status: 'failed', updated_at: this.deps.clock.now().toISOString() });
        throw err;
      });
      const envelope = parsed.ok ? parsed.interchange : parsed.envelope;
      const entry = entryOf(child.messageId, envelope?.controlNumber ?? null, answer);
      partnerIds.add(entry.result?.partner.id ?? null);
      entries.push(entry);
    }
    const answer = combine(received.messageId, entries);
    const documents = entries.flatMap((e) => e.result?.documents ?? []);
    const refused = entries.some((e) => e.error !== undefined);
    const status = messageStatus(documents, refused);
    const types = [...new Set(entries.flatMap((e) => e.result?.documents.map((d) => d.type) ?? []))].join(',');
    const [partnerId] = partnerIds;
    const settled: Settled = {
      status: refused && status === 'accepted' ? 'partial' : status,
      type: types === '' ? null : types,
      ...(partnerIds.size === 1 && partnerId !== undefined ? { partner_id: partnerId } : {}),
    };
    // In a transaction so that the outcome recorded for an idempotency key commits with the body's row.
    return this.deps.db.transaction().execute((tx) => this.settle(tx, received, settled, [], answer));
  }

  private receivedRow(received: Received, raw: Buffer): Omit<messages.MessageRow, 'raw'> {
    return {
      id: received.messageId,
      org_id: received.orgId,
      direction: 'inbound',
      partner_id: null,
      type: null,
      control_number: null,
      status: 'received',
      size: raw.length,
      sha256: received.sha,
      errors: null,
      http_status: null,
      result: null,
      related_id: null,
      parent_id: received.parentId ?? null,
      order_id: null,
      created_at: received.at.toISOString(),
      updated_at: received.at.toISOString(),
    };
  }

  private async process(received: Received, parsed: ParseResult): Promise<StoredAnswer> {
    const envelope = parsed.ok ? parsed.interchange : parsed.envelope;
    if (envelope === undefined) {
      const errors = parsed.issues.map(toEdiError);
      const notX12 = parsed.issues.some((i) => i.code === X12_CODES.notX12);
      const answer = notX12
        ? failure(
            'invalid_input',
            `not an X12 interchange: ${errors[0]?.message ?? 'it must start with ISA'}; send one interchange, ISA ... IEA (kept as message ${received.messageId})`,
            { message_id: received.messageId, errors },
          )
        : failure('unprocessable', summarize(errors.length, errors, 'the interchange header (ISA)'), { message_id: received.messageId, errors });
      return this.settle(this.deps.db, received, { status: notX12 ? 'not_x12' : 'rejected' }, errors, answer);
    }
    const identity = { control_number: envelope.controlNumber, type: setTypes(envelope) };
    const refuse = (code: string, message: string, element: number, value: string, partnerId: string | null): Promise<StoredAnswer> => {
      const errors: EdiError[] = [{ code, message, level: 'interchange', position: 1, segment_id: 'ISA', element, value }];
      return this.settle(this.deps.db, received, { status: 'rejected', partner_id: partnerId, ...identity }, errors, failure('unprocessable', message, { message_id: received.messageId, errors }));
    };
    const sender = `${envelope.senderQualifier}/${envelope.senderId}`;
    const partner = await this.deps.partners.senderOf(this.deps.db, received.orgId, envelope.senderQualifier, envelope.senderId);
    if (partner === undefined) return refuse('unknown_partner', `unknown trading partner ${sender} (ISA05/ISA06)`, 6, envelope.senderId, null);
    const profile = await this.deps.partners.ourProfile(this.deps.db, received.orgId);
    const addressed = profile !== undefined && (await this.deps.partners.isOurInterchangeId(this.deps.db, profile, envelope.receiverQualifier, envelope.receiverId));
    if (profile === undefined || !addressed) {
      const receiver = `${envelope.receiverQualifier}/${envelope.receiverId}`;
      const ours = profile === undefined ? '(none set)' : `${profile.isa_qualifier}/${profile.isa_id}`;
      return refuse('wrong_receiver', `ISA07/ISA08 ${receiver} is not this organisation's interchange id ${ours}`, 8, envelope.receiverId, partner.id);
    }
    const ours: Party = { qualifier: envelope.receiverQualifier, id: envelope.receiverId };
    const seen = await messages.findInterchange(this.deps.db, received.orgId, partner.id, envelope.controlNumber);
    if (seen !== undefined) return this.replay(received, seen, partner, identity.type, envelope.isa, ours);
    // Checked before the transaction opens: validation is the CPU-heavy part and holds no lock.
    const checks = checkInterchange(envelope);
    const issues = [...parsed.issues, ...checks.issues, ...unsupportedSets(envelope)];
    if (!parsed.ok) issues.push(...envelope.groups.map(interchangeRejected));
    const checked: Checked = { envelope, issues, partner, profile, ours, envelopeIssues: parsed.issues, notes: fallbackNotes(checks.tables) };
    const answer = await this.deps.db.transaction().execute((tx) => this.processInterchange(tx, received, checked));
    if (answer !== undefined) return answer;
    // A resend raced this one and won the key: answer as the resend we turned out to be.
    const winner = await messages.findInterchange(this.deps.db, received.orgId, partner.id, envelope.controlNumber);
    if (winner === undefined) throw new Error(`interchange ${envelope.controlNumber} was claimed but is not recorded`);
    return this.replay(received, winner, partner, identity.type, envelope.isa, ours);
  }

  /** The same ISA13 from the same partner: the same bytes get the stored answer, different bytes a 409. */
  private async replay(
    received: Received,
    seen: messages.InterchangeRow,
    partner: TradingPartner,
    type: string | null,
    isa: readonly string[],
    ours: Party,
  ): Promise<StoredAnswer> {
    const settled = { partner_id: partner.id, control_number: seen.control_number, related_id: seen.message_id, type };
    if (seen.sha256 !== received.sha) {
      const message =
        `interchange ${seen.control_number} from ${partner.name} was already received with different content ` +
        `(message ${seen.message_id}); send a changed interchange with a new ISA13`;
      const errors: EdiError[] = [{ code: 'duplicate_control_number', message, level: 'interchange', position: 1, segment_id: 'ISA', element: 13, value: seen.control_number }];
      // The TA1 (R 025) and the 409 are recorded together: a counter number is never spent on an unrecorded TA1.
      return this.deps.db.transaction().execute(async (tx) => {
        const controlNumber = await this.deps.partners.reserveControlNumbers(tx, received.orgId, 1);
        const ack = await this.sendTa1(tx, received, partner, isa, ours, { code: 'R', noteCode: TA1_NOTES.duplicateControlNumber }, controlNumber);
        const details = { message_id: received.messageId, original_message_id: seen.message_id, interchange_ack: ack };
        return this.settle(tx, received, { status: 'conflict', ...settled }, errors, failure('conflict', message, details));
      });
    }
    const original = await messages.findMessage(this.deps.db, received.orgId, seen.message_id);
    const stored = storedAnswerSchema.parse(JSON.parse(original?.result ?? 'null'));
    // In a transaction so that the outcome recorded for an idempotency key commits with the resend's row.
    return this.deps.db.transaction().execute((tx) => this.settle(tx, received, { status: 'duplicate', ...settled }, [], stored));
  }

  /** Claims the interchange key, takes the documents, writes the 997s and 855s; undefined when the key was taken. */
  private async processInterchange(tx: Tx, received: Received, checked: Checked): Promise<StoredAnswer | undefined> {
    const { envelope, issues, partner, profile } = checked;
    const claimed = await messages.claimInterchange(tx, {
      org_id: received.orgId,
      partner_id: partner.id,
      control_number: envelope.controlNumber,
      sha256: received.sha,
      message_id: received.messageId,
    });
    if (!claimed) return undefined;
    const verdicts = await assess997Async(envelope, issues);
    const { documents, owed } = await this.takeDocuments(tx, received, checked, verdicts);
    // A TA1 when the partner asks for one (ISA14 1) or the envelope is rejected; none when no TA105 code fits.
    const interchange = ta1Verdict(checked.envelopeIssues);
    const ta1 = interchange !== undefined && (interchange.code === 'R' || envelope.isa[13] === '1') ? interchange : undefined;

    // Control numbers are taken last, so the counter row is locked only for the few writes below.
    const needed = verdicts.length + owed.length + (ta1 === undefined ? 0 : 1);
    let next = needed === 0 ? 0 : await this.deps.partners.reserveControlNumbers(tx, received.orgId, needed);
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
    // Multi-row writes, PACE * 2 documents at a time with a yield between: one large body never starves other requests.
    for (let i = 0; i < acks.length; i += PACE * 2) {
      const slice = acks.slice(i, i + PACE * 2);
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

    const interchangeAck = ta1 === undefined ? undefined : await this.sendTa1(tx, received, partner, envelope.isa, checked.ours, ta1, take());
    const result: SubmitResult = {
      message_id: received.messageId,
      partner: { id: partner.id, name: partner.name },
      acknowledgments,
      documents,
      ...(interchangeAck === undefined ? {} : { interchange_ack: interchangeAck }),
    };
    const errors = listErrors(issues);
    const answer: StoredAnswer =
      errors.length === 0
        ? { kind: 'ok', body: result }
        : failure('unprocessable', summarize(issues.length, errors, `interchange ${envelope.controlNumber}`), { ...result, errors });
    const settled: Settled = {
      status: messageStatus(documents, errors.length > 0),
      partner_id: partner.id,
      control_number: envelope.controlNumber,
      type: setTypes(envelope),
    };
    return this.settle(tx, received, settled, errors, answer);
  }

  /** One document per transaction set: accepted 850s go to the orders service, the rest are recorded with their findings. */
  private async takeDocuments(tx: Tx, received: Received, checked: Checked, verdicts: readonly GroupVerdict[]): Promise<{ documents: DocumentView[]; owed: Owed[] }> {
    const setVerdicts = new Map<TransactionSet, { set: SetVerdict; groupIssues: X12Issue[] }>();
    for (const g of verdicts) for (const s of g.sets) setVerdicts.set(s.set, { set: s, groupIssues: g.issues });
    const documents: DocumentView[] = [];
    // Written a batch at a time in this transaction: a large body never holds every document's stored detail at once.
    let rows: messages.DocumentRow[] = [];
    let rowBytes = 0;
    const owed: Owed[] = [];
    const qualifiers = checked.partner.sku_qualifiers.split(',');
    // Findings of inbound 997 sets, filed once rather than searched per set.
    const bySetControl = new Map<string, X12Issue[]>();
    for (const issue of checked.issues) {
      const key = JSON.stringify([issue.groupControl, issue.setControl]);
      const list = bySetControl.get(key);
      if (list === undefined) bySetControl.set(key, [issue]);
      else list.push(issue);
    }
    for (const group of checked.envelope.groups) {
      for (const set of group.transactionSets) {
        await pace(documents.length);
        const verdict = setVerdicts.get(set);
        let view: DocumentView;
        let detail: DocumentDetail;
        if (verdict === undefined) {
          // An inbound 997 (FA group): recorded, never acknowledged.
          const errors = (bySetControl.get(JSON.stringify([group.controlNumber, set.controlNumber])) ?? []).map(toEdiError);
          detail = { errors };
          view = documentView(set.id, set, errors.length === 0 ? 'received' : 'rejected', errors);
        } else if (!verdict.set.accepted) {
          detail = { errors: [...verdict.groupIssues, ...verdict.set.issues].map(toEdiError) };
          // Read without caching the segments on the set: a large body holds only the findings of its rejected sets.
          const poNumber = set.id === '850' ? readPurchaseOrder(readSegments(set)).poNumber : '';
          view = documentView(set.id, set, 'rejected', detail.errors, { poNumber });
        } else {
          const outcome = await takePurchaseOrder(tx, this.deps, { orgId: received.orgId, qualifiers, set, gs08: group.version, test: checked.envelope.usage === 'T' });
          if (outcome.ack !== undefined) owed.push({ outcome, ack: outcome.ack });
          detail = outcome.detail;
          view = documentView(set.id, set, outcome.status, detail.errors, outcome);
        }
        const notes = checked.notes.get(JSON.stringify([group.controlNumber, set.controlNumber]));
        if (notes !== undefined) view = { ...view, notes };
        documents.push(view);
        const stored = JSON.stringify(detail);
        rowBytes += stored.length;
        rows.push({
          message_id: received.messageId,
          seq: documents.length,
          org_id: received.orgId,
          type: set.id,
          group_control: group.controlNumber,
          control_number: set.controlNumber,
          status: view.status,
          po_number: view.po_number ?? null,
          order_id: view.order_id ?? null,
          detail: stored,
        });
        if (rows.length === DOCUMENT_BATCH || rowBytes > DOCUMENT_BATCH_BYTES) {
          await messages.insertDocuments(tx, rows);
          rows = [];
          rowBytes = 0;
        }
      }
    }
    await messages.insertDocuments(tx, rows);
    return { documents, owed };
  }

  /** Builds a TA1 addressed back to the sender and records it like a 997: kept and answered inline, not delivered. */
  private async sendTa1(tx: Tx, received: Received, partner: TradingPartner, isa: readonly string[], ours: Party, verdict: Ta1Verdict, controlNumber: number): Promise<InterchangeAck> {
    const x12 = buildTa1({ isa, code: verdict.code, noteCode: verdict.noteCode, controlNumber, ourIdentity: ours, date: received.at });
    const id = await recordOutbound(tx, { orgId: received.orgId, partner, relatedId: received.messageId, at: received.at, type: 'TA1', x12, controlNumber, orderId: null, poNumber: null, deliver: false });
    return { code: verdict.code, note: verdict.noteCode, message_id: id, x12 };
  }

  /**
   * Writes the outcome onto the message row (the answer included, for resends) and returns the answer. A success is
   * also settled as the call's answer, in the same transaction (`db` is one on every success path). Refusals are
   * settled by the invoker after the fact; a retry after a crash finds the interchange's stored answer.
   */
  private async settle(db: Executor, received: Received, settled: Settled, errors: readonly EdiError[], answer: StoredAnswer): Promise<StoredAnswer> {
    await messages.updateMessage(db, received.orgId, received.messageId, {
      ...settled,
      errors: errors.length === 0 ? null : JSON.stringify(errors),
      http_status: answer.kind === 'ok' ? 200 : ERROR_STATUS[answer.code],
      result: JSON.stringify(answer),
      updated_at: this.deps.clock.now().toISOString(),
    });
    // An interchange of a several-interchange body is not the call's outcome: the body's combined answer is.
    if (answer.kind === 'ok' && received.parentId === undefined) await received.settleCall(db, answer.body);
    return answer;
  }
}
