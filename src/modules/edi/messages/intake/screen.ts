import { pace } from '../../../../platform/core/pacer.js';
import type { Tx } from '../../../../platform/db/schema.js';
import * as messages from '../messages.repository.js';
import type { OurInterchangeProfile, TradingPartner } from '../../partners/partners.service.js';
import {
  echoText,
  type Examined,
  type FunctionalGroup,
  type PartialInterchange,
  type Party,
  type TableUse,
  X12_CODES,
  type X12Issue,
} from '../../x12/index.js';
import type { IntakeDeps, Received } from './received.js';

// Step 2 of the intake, screen: who sent it, to whom, whether it was seen before, and every finding about it.

/** Transaction sets the gateway takes in a non-FA group; anything else is rejected in the 997 (AK502 1). */
const SUPPORTED_SETS = new Set(['850']);

/** Why an interchange is refused before anything in it is read: each reason its own value, worded once in settle. */
export type Refusal =
  | { reason: 'not_x12'; issues: readonly X12Issue[] }
  | { reason: 'unreadable_isa'; issues: readonly X12Issue[] }
  | { reason: 'unknown_partner'; sender: string; senderId: string }
  | { reason: 'wrong_receiver'; partner: TradingPartner; receiver: string; receiverId: string; ours: string };

/** An interchange that passed the envelope, partner and receiver checks, with every finding about it. */
export interface Checked {
  envelope: PartialInterchange;
  issues: X12Issue[];
  partner: TradingPartner;
  profile: OurInterchangeProfile;
  /** The interchange id the partner addressed (ISA07/ISA08): the 997s and the TA1 come from it. */
  ours: Party;
  /** What parseX12 found: the interchange-level ones decide the TA1. */
  envelopeIssues: readonly X12Issue[];
  /** Notes per set (key: the ST's position, unique where control numbers may repeat), e.g. a check against the nearest version's table. */
  notes: Map<number, string[]>;
}

/** The same ISA13 from the same partner was taken before (or is being taken). */
export interface Resend {
  seen: messages.InterchangeRow;
  partner: TradingPartner;
  ours: Party;
  envelope: PartialInterchange;
  /** The interchange as screened, so an original left part taken can be finished from the resend's own reading. */
  checked?: Checked;
}

export type Screening = { kind: 'refused'; refusal: Refusal; envelope?: PartialInterchange } | { kind: 'resend'; resend: Resend } | { kind: 'new'; checked: Checked };

/**
 * setTypes per interchange: found while screening (paced), then asked again inside the claim and the settling
 * transactions, where it must not yield.
 */
const typesOf = new WeakMap<PartialInterchange, string | null>();

/** The kinds of set an interchange carries, in order of appearance ("850" or "850,997"). */
export async function setTypes(envelope: PartialInterchange): Promise<string | null> {
  const known = typesOf.get(envelope);
  if (known !== undefined) return known;
  // Each distinct id echoed once: 40,000 groups of 850s are one '850', not 40,000 echoes (43 ms on the request thread).
  const ids = new Set<string>();
  for (const group of envelope.groups) {
    for (const set of group.transactionSets) ids.add(set.id);
    await pace();
  }
  const joined = [...new Set([...ids].map((id) => echoText(id)))].join(',');
  const types = joined === '' ? null : joined;
  typesOf.set(envelope, types);
  return types;
}

export async function screen(deps: IntakeDeps, received: Received, { parsed, checks }: Examined): Promise<Screening> {
  const envelope = parsed.ok ? parsed.interchange : parsed.envelope;
  if (envelope === undefined) {
    const notX12 = parsed.issues.some((i) => i.code === X12_CODES.notX12);
    return { kind: 'refused', refusal: { reason: notX12 ? 'not_x12' : 'unreadable_isa', issues: parsed.issues } };
  }
  // Found here, yielding as it goes: every later step asks for it, some inside a transaction.
  await setTypes(envelope);
  const partner = await deps.partners.senderOf(deps.db, received.orgId, envelope.senderQualifier, envelope.senderId);
  if (partner === undefined) {
    return { kind: 'refused', envelope, refusal: { reason: 'unknown_partner', sender: `${envelope.senderQualifier}/${envelope.senderId}`, senderId: envelope.senderId } };
  }
  const profile = await deps.partners.ourProfile(deps.db, received.orgId);
  const addressed = profile !== undefined && (await deps.partners.isOurInterchangeId(deps.db, profile, envelope.receiverQualifier, envelope.receiverId));
  if (profile === undefined || !addressed) {
    const receiver = `${envelope.receiverQualifier}/${envelope.receiverId}`;
    const ours = profile === undefined ? '(none set)' : `${profile.isa_qualifier}/${profile.isa_id}`;
    return { kind: 'refused', envelope, refusal: { reason: 'wrong_receiver', partner, receiver, receiverId: envelope.receiverId, ours } };
  }
  const ours: Party = { qualifier: envelope.receiverQualifier, id: envelope.receiverId };
  // Checked in a worker thread (examine.worker.ts): validation is the CPU-heavy part and holds no lock.
  const issues = [...parsed.issues, ...checks.issues, ...(await unsupportedSets(envelope))];
  if (!parsed.ok) issues.push(...envelope.groups.map(interchangeRejected));
  const checked: Checked = { envelope, issues, partner, profile, ours, envelopeIssues: parsed.issues, notes: fallbackNotes(checks.tables) };
  const seen = await messages.findInterchange(deps.db, received.orgId, partner.id, envelope.controlNumber);
  if (seen !== undefined) return { kind: 'resend', resend: { seen, partner, ours, envelope, checked } };
  return { kind: 'new', checked };
}

/** Claims the partner's ISA13 for this message, in the transaction that takes the documents; false when a resend won it. */
export function claimControlNumber(tx: Tx, received: Received, checked: Checked): Promise<boolean> {
  return messages.claimInterchange(tx, {
    org_id: received.orgId,
    partner_id: checked.partner.id,
    control_number: checked.envelope.controlNumber,
    sha256: received.sha,
    message_id: received.messageId,
  });
}

/** The message that claimed this ISA13 when a resend raced this one and won the key. */
export async function winnerOf(deps: IntakeDeps, received: Received, checked: Checked): Promise<Resend> {
  const seen = await messages.findInterchange(deps.db, received.orgId, checked.partner.id, checked.envelope.controlNumber);
  if (seen === undefined) throw new Error(`interchange ${checked.envelope.controlNumber} was claimed but is not recorded`);
  return { seen, partner: checked.partner, ours: checked.ours, envelope: checked.envelope, checked };
}

async function unsupportedSets(envelope: PartialInterchange): Promise<X12Issue[]> {
  // A plain loop: a flatMap over 40,000 groups made an array per group for what is nearly always none.
  const issues: X12Issue[] = [];
  for (const group of envelope.groups) {
    await pace();
    if (group.functionalId === 'FA') continue;
    for (const set of group.transactionSets) {
      if (SUPPORTED_SETS.has(set.id)) continue;
      issues.push({
        code: 'AK502:1',
        message: `transaction set ${echoText(set.id)} is not supported; the gateway takes 850`,
        level: 'set',
        position: set.position,
        segmentId: 'ST',
        element: 1,
        groupControl: group.controlNumber,
        setControl: set.controlNumber,
        groupPosition: group.position,
        setPosition: set.position,
        value: set.id,
      });
    }
  }
  return issues;
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
    groupPosition: group.position,
  };
}

/** The sets checked against another version's table, as notes for the JSON answer (a 997 has no place for free text). */
function fallbackNotes(tables: readonly TableUse[]): Map<number, string[]> {
  const notes = new Map<number, string[]>();
  for (const t of tables) {
    if (!t.fallback || t.note === undefined) continue;
    notes.set(t.position, [...(notes.get(t.position) ?? []), t.note]);
  }
  return notes;
}
