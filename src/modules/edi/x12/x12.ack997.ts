import { setImmediate } from 'node:timers/promises';
import { chooseDelimiters, echoX12, echoX12Id, scrub } from './x12.delimiters.js';
import { type Findings, indexFindings } from './x12.findings.js';
import { buildInterchange, DEFAULT_DELIMITERS_00401, DEFAULT_DELIMITERS_00501, type Party } from './x12.writer.js';
import type { Delimiters, FunctionalGroup, Interchange, PartialInterchange, TransactionSet, X12Issue } from './x12.types.js';

type AckCode = 'A' | 'E' | 'P' | 'R';

interface Ack997Options {
  /** Called once per 997 produced (one interchange each); the caller owns and persists its counters. */
  nextControlNumbers: () => { interchange: number; group: number };
  ourIdentity: Party;
  date: Date;
  /** Delimiters for the outbound 997s; defaults to * > ~ (^ for 00501) with newlines. */
  delimiters?: Delimiters;
}

export interface Ack997 {
  /** GS06 of the inbound group this 997 acknowledges. */
  groupControlNumber: string;
  /** AK901 */
  code: AckCode;
  /** ISA13 of the 997's own interchange. */
  interchangeControlNumber: number;
  x12: string;
}

/** At most five codes fit in AK502..AK506 and AK905..AK909. */
const MAX_CODES = 5;
/** AK404 is AN 1/99. */
const MAX_COPY = 99;

function codeValue(issue: X12Issue, prefix: string): string | undefined {
  return issue.code.startsWith(`${prefix}:`) ? issue.code.slice(prefix.length + 1) : undefined;
}

function unique(values: readonly (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const v of values) if (v !== undefined && !out.includes(v)) out.push(v);
  return out.slice(0, MAX_CODES);
}

interface SetAck {
  segments: string[][];
  accepted: boolean;
}

/** Index of AK404 (the copy of the bad value) in an AK4 element array. */
const COPY_INDEX = 4;

/** Widths the 997 allows for the values it echoes (AN/ID maximums of the elements they land in). */
const WIDTH = { functionalId: 2, groupControl: 9, version: 12, setId: 3, setControl: 9, st03: 35, segmentId: 3, loopId: 6, elementRef: 4, appCode: 15 } as const;

/**
 * AK2 loop of one set: AK3/AK4 per segment in error, then AK5. Every echoed value is cut to its element's width and to
 * printable ASCII here; AK404 holds the copy until delimiters are known. `groupRejected`: the group's own findings
 * reject it, so the set is rejected too (AK5 R, without an AK502 code when the set itself is sound).
 */
function ackSet(set: TransactionSet, issues: readonly X12Issue[], is5010: boolean, groupRejected: boolean): SetAck {
  const ak2 = ['AK2', echoX12(set.id, WIDTH.setId), echoX12(set.controlNumber, WIDTH.setControl)];
  const st03 = echoX12(set.st[2] ?? '', WIDTH.st03);
  if (is5010 && st03 !== '') ak2.push(st03);
  const segments: string[][] = [ak2];
  const setCodes = issues.filter((i) => i.level === 'set').map((i) => codeValue(i, 'AK502'));
  const detail = issues.filter((i) => i.level === 'segment' || i.level === 'element');
  // One AK3 per (position, segment id); element findings add AK4s and make the AK304 code 8 unless the segment has its own.
  const bySegment = new Map<string, X12Issue[]>();
  for (const issue of detail) {
    const key = `${issue.position ?? 0}|${issue.segmentId ?? ''}`;
    const list = bySegment.get(key);
    if (list === undefined) bySegment.set(key, [issue]);
    else list.push(issue);
  }
  for (const list of bySegment.values()) {
    const head = list[0];
    if (head === undefined) continue;
    const segmentCode = list.map((i) => codeValue(i, 'AK304')).find((c) => c !== undefined) ?? '8';
    const positionInSet = String((head.position ?? set.position) - set.position + 1);
    const loopId = echoX12(list.find((i) => i.loopId !== undefined)?.loopId ?? '', WIDTH.loopId);
    segments.push(['AK3', echoX12Id(head.segmentId ?? '', WIDTH.segmentId), positionInSet, loopId, segmentCode]);
    for (const issue of list) {
      const elementCode = codeValue(issue, 'AK403');
      if (elementCode === undefined) continue;
      segments.push(['AK4', String(issue.element ?? ''), echoX12(issue.elementRef ?? '', WIDTH.elementRef), elementCode, echoX12(issue.value ?? '', MAX_COPY)]);
    }
  }
  const ownFault = setCodes.length > 0 || detail.length > 0;
  const codes = unique([...setCodes, detail.length > 0 ? '5' : undefined]);
  const accepted = !ownFault && !groupRejected;
  segments.push(['AK5', accepted ? 'A' : 'R', ...codes]);
  return { segments, accepted };
}

function groupCode(groupRejected: boolean, accepted: number, received: number): AckCode {
  if (groupRejected) return 'R';
  if (accepted === received) return 'A';
  return accepted === 0 ? 'R' : 'P';
}

/** AK404 is dropped rather than mangled when the bad value contains a delimiter of the 997. */
function copyOrEmpty(value: string, delimiters: Delimiters): string {
  return scrub(value, delimiters) === value ? value : '';
}

/** What the 997 of one group says about the group and each of its sets. */
export interface GroupVerdict {
  group: FunctionalGroup;
  /** AK901 */
  code: AckCode;
  /** Group-level findings (AK905); any of them rejects every set of the group. */
  issues: X12Issue[];
  sets: SetVerdict[];
}

export interface SetVerdict {
  set: TransactionSet;
  /** AK5 A: the receiver must process exactly these sets (never A in a rejected group). */
  accepted: boolean;
  /** The set's own findings (AK5, AK3, AK4). */
  issues: X12Issue[];
}

interface Judged extends GroupVerdict {
  acks: SetAck[];
  accepted: number;
}

function judgeGroup(group: FunctionalGroup, index: Findings): Judged | undefined {
  if (group.functionalId === 'FA') return undefined;
  const is5010 = group.version.startsWith('005010');
  const groupIssues = index.group(group);
  const groupRejected = groupIssues.length > 0;
  const sets: SetVerdict[] = [];
  const acks: SetAck[] = [];
  for (const set of group.transactionSets) {
    const issues = index.set(set);
    const ack = ackSet(set, issues, is5010, groupRejected);
    acks.push(ack);
    sets.push({ set, accepted: ack.accepted, issues });
  }
  const accepted = sets.filter((s) => s.accepted).length;
  return { group, code: groupCode(groupRejected, accepted, sets.length), issues: groupIssues, sets, acks, accepted };
}

/** Work units (groups plus sets) between two yields to the event loop in the async variants. */
const CHUNK = 2000;

/** The judged groups one at a time, with the work each cost (1 + its sets), so a driver can pace itself. */
function* judgeAll(source: Interchange | PartialInterchange, issues: readonly X12Issue[]): Generator<{ judged: Judged | undefined; cost: number }> {
  const index = indexFindings(source.groups, issues);
  for (const group of source.groups) yield { judged: judgeGroup(group, index), cost: 1 + group.transactionSets.length };
}

/** Runs `step` on every judged group, yielding to the event loop every CHUNK groups and sets. */
async function paced(source: Interchange | PartialInterchange, issues: readonly X12Issue[], step: (judged: Judged) => void): Promise<void> {
  let work = 0;
  for (const { judged, cost } of judgeAll(source, issues)) {
    if (judged !== undefined) step(judged);
    work += cost;
    if (work >= CHUNK) {
      work = 0;
      await setImmediate();
    }
  }
}

/** What each verdict was judged from, so its 997 is written without judging the group again. */
const judgedOf = new WeakMap<GroupVerdict, Judged>();

function verdictOf(judged: Judged): GroupVerdict {
  const verdict: GroupVerdict = { group: judged.group, code: judged.code, issues: judged.issues, sets: judged.sets };
  judgedOf.set(verdict, judged);
  return verdict;
}

/**
 * The verdicts the 997s for these findings will carry, per group (inbound 997 groups left out), without writing
 * them: a receiver decides what to process from this before it spends control numbers on the 997s.
 */
export function assess997(source: Interchange | PartialInterchange, issues: readonly X12Issue[]): GroupVerdict[] {
  const out: GroupVerdict[] = [];
  for (const { judged } of judgeAll(source, issues)) if (judged !== undefined) out.push(verdictOf(judged));
  return out;
}

/** assess997 that yields to the event loop every few thousand groups and sets, for large bodies in a server. */
export async function assess997Async(source: Interchange | PartialInterchange, issues: readonly X12Issue[]): Promise<GroupVerdict[]> {
  const out: GroupVerdict[] = [];
  await paced(source, issues, (judged) => out.push(verdictOf(judged)));
  return out;
}

/** AK905 for a group finding that has no code of its own (a segment outside any set, a rejected interchange). */
const GROUP_REJECTED = '1';

/**
 * AK905..AK909: a rejected group always names a reason. A group finding X12 has no AK905 code for is reported as 1
 * (functional group not supported: we do not take it); the HTTP answer and a TA1 carry the precise finding.
 */
function groupCodes(issues: readonly X12Issue[]): string[] {
  return unique(issues.map((i) => codeValue(i, 'AK905') ?? GROUP_REJECTED));
}

/** Writes the 997 of one judged group. */
function write997(source: Interchange | PartialInterchange, judged: Judged, opts: Ack997Options): Ack997 {
  // The writer holds 00401 and 00501: any newer interchange is answered in 00501, any older (or unreadable) one in 00401.
  const version = /^\d{5}$/.test(source.version) && source.version >= '00501' ? '00501' : '00401';
  const preferred = opts.delimiters ?? (version === '00501' ? DEFAULT_DELIMITERS_00501 : DEFAULT_DELIMITERS_00401);
  const { group, code, accepted } = judged;
  const is5010 = group.version.startsWith('005010');
  const received = group.transactionSets.length;
  const ge01 = group.ge?.[0] ?? '';
  const included = /^\d{1,6}$/.test(ge01) ? String(Number(ge01)) : String(received);
  const ak1 = ['AK1', echoX12(group.functionalId, WIDTH.functionalId), echoX12(group.controlNumber, WIDTH.groupControl)];
  if (is5010) ak1.push(echoX12(group.version, WIDTH.version));
  const ak9 = ['AK9', code, included, String(received), String(accepted), ...groupCodes(judged.issues)];
  const body = [ak1, ...judged.acks.flatMap((a) => a.segments), ak9];
  const senderCode = echoX12(group.gs[2] ?? '', WIDTH.appCode);
  const receiverCode = echoX12(group.gs[1] ?? '', WIDTH.appCode);
  const partnerQualifier = echoX12(source.senderQualifier, 2);
  const partnerId = echoX12(source.senderId, 15);
  // Delimiters are chosen against everything echoed from the inbound except AK404 copies, which are optional.
  const echoed = [senderCode, receiverCode, partnerQualifier, partnerId];
  for (const segment of body) {
    for (const [i, v] of segment.entries()) if (!(segment[0] === 'AK4' && i === COPY_INDEX)) echoed.push(v);
  }
  const delimiters = chooseDelimiters(preferred, echoed.join(''));
  const segments = body.map((segment) => segment.map((v, i) => (segment[0] === 'AK4' && i === COPY_INDEX ? copyOrEmpty(v, delimiters) : scrub(v, delimiters))));
  const numbers = opts.nextControlNumbers();
  const x12 = buildInterchange(
    {
      sender: opts.ourIdentity,
      receiver: { qualifier: scrub(partnerQualifier, delimiters), id: scrub(partnerId, delimiters) },
      controlNumber: numbers.interchange,
      date: opts.date,
      version,
      usage: source.usage === 'T' ? 'T' : 'P',
      groups: [
        {
          functionalId: 'FA',
          senderCode: scrub(senderCode, delimiters),
          receiverCode: scrub(receiverCode, delimiters),
          controlNumber: numbers.group,
          version: is5010 ? '005010' : '004010',
          sets: [{ id: '997', controlNumber: 1, segments }],
        },
      ],
    },
    delimiters,
    { newline: opts.delimiters === undefined },
  );
  return { groupControlNumber: group.controlNumber, code, interchangeControlNumber: numbers.interchange, x12 };
}

/**
 * One 997 per inbound functional group, each in its own interchange addressed back to the sender.
 * `issues` are everything known about the inbound (parseX12 issues plus validateTransactionSet findings);
 * interchange-level issues belong in a TA1 and are ignored here. Inbound 997 groups (GS01 FA) get no 997.
 */
export function build997(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: Ack997Options): Ack997[] {
  const acks: Ack997[] = [];
  for (const { judged } of judgeAll(source, issues)) if (judged !== undefined) acks.push(write997(source, judged, opts));
  return acks;
}

/**
 * The 997s of verdicts assess997/assess997Async gave (what a receiver does once it has decided what to process):
 * the same as build997 without judging every group a second time; yields to the event loop like assess997Async.
 */
export async function write997s(source: Interchange | PartialInterchange, verdicts: readonly GroupVerdict[], opts: Ack997Options): Promise<Ack997[]> {
  const acks: Ack997[] = [];
  let work = 0;
  for (const verdict of verdicts) {
    const judged = judgedOf.get(verdict);
    if (judged === undefined) throw new Error('write997s takes the verdicts of assess997, unchanged');
    acks.push(write997(source, judged, opts));
    work += 1 + judged.sets.length;
    if (work >= CHUNK) {
      work = 0;
      await setImmediate();
    }
  }
  return acks;
}
