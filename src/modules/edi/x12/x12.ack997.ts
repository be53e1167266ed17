import { chooseDelimiters, scrub } from './x12.delimiters.js';
import { buildInterchange, DEFAULT_DELIMITERS_00401, DEFAULT_DELIMITERS_00501, type Party } from './x12.writer.js';
import type { Delimiters, FunctionalGroup, Interchange, PartialInterchange, TransactionSet, X12Issue } from './x12.types.js';

export type AckCode = 'A' | 'E' | 'P' | 'R';

export interface Ack997Options {
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

/** Findings that belong to one set: set-level ones by control number (position breaks ties), segment/element ones by position. */
function issuesOfSet(issues: readonly X12Issue[], group: FunctionalGroup, set: TransactionSet): X12Issue[] {
  const first = set.position;
  const last = set.position + set.segmentCount - 1;
  return issues.filter((issue) => {
    if (issue.groupControl !== undefined && issue.groupControl !== group.controlNumber) return false;
    if (issue.level === 'set') {
      if (issue.setControl !== set.controlNumber) return false;
      const twins = group.transactionSets.filter((s) => s.controlNumber === set.controlNumber);
      if (twins.length < 2 || issue.position === undefined) return true;
      // Duplicate ST02s: the trailer-missing finding sits one past the set's last segment.
      return twins.find((s) => issue.position !== undefined && issue.position >= s.position && issue.position <= s.position + s.segmentCount) === set;
    }
    if (issue.level !== 'segment' && issue.level !== 'element') return false;
    if (issue.setControl !== undefined && issue.setControl !== set.controlNumber) return false;
    return issue.position !== undefined && issue.position >= first && issue.position <= last;
  });
}

function issuesOfGroup(issues: readonly X12Issue[], groups: readonly FunctionalGroup[], index: number): X12Issue[] {
  const group = groups[index];
  if (group === undefined) return [];
  const twins = groups.filter((g) => g.controlNumber === group.controlNumber);
  const next = groups[index + 1]?.position ?? Number.POSITIVE_INFINITY;
  return issues.filter((issue) => {
    if (issue.level !== 'group' || issue.groupControl !== group.controlNumber) return false;
    if (twins.length < 2 || issue.position === undefined) return true;
    return issue.position >= group.position && issue.position <= next;
  });
}

interface SetAck {
  segments: string[][];
  accepted: boolean;
}

/** Index of AK404 (the copy of the bad value) in an AK4 element array. */
const COPY_INDEX = 4;

/** AK2 loop of one set: AK3/AK4 per segment in error, then AK5. AK404 holds the raw value until delimiters are known. */
function ackSet(set: TransactionSet, issues: readonly X12Issue[], is5010: boolean): SetAck {
  const ak2 = ['AK2', set.id, set.controlNumber];
  const st03 = set.st[2];
  if (is5010 && st03 !== undefined && st03 !== '') ak2.push(st03);
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
    segments.push(['AK3', head.segmentId ?? '', positionInSet, list.find((i) => i.loopId !== undefined)?.loopId ?? '', segmentCode]);
    for (const issue of list) {
      const elementCode = codeValue(issue, 'AK403');
      if (elementCode === undefined) continue;
      segments.push(['AK4', String(issue.element ?? ''), issue.elementRef ?? '', elementCode, (issue.value ?? '').slice(0, MAX_COPY)]);
    }
  }
  const accepted = setCodes.length === 0 && detail.length === 0;
  const codes = unique([...setCodes, detail.length > 0 ? '5' : undefined]);
  segments.push(['AK5', accepted ? 'A' : 'R', ...codes]);
  return { segments, accepted };
}

function groupCode(groupRejected: boolean, accepted: number, received: number): AckCode {
  if (groupRejected) return 'R';
  if (accepted === received) return 'A';
  return accepted === 0 ? 'R' : 'P';
}

/** AK404 is dropped rather than mangled when the bad value contains a delimiter of the 997. */
function copyOrEmpty(value: string, d: Delimiters): string {
  return scrub(value, d) === value ? value : '';
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
  /** AK5 A in a group that is not rejected: the receiver must process exactly these sets. */
  accepted: boolean;
  /** The set's own findings (AK5, AK3, AK4). */
  issues: X12Issue[];
}

interface Judged extends GroupVerdict {
  acks: SetAck[];
  accepted: number;
}

function judgeGroup(source: Interchange | PartialInterchange, issues: readonly X12Issue[], index: number): Judged | undefined {
  const group = source.groups[index];
  if (group === undefined || group.functionalId === 'FA') return undefined;
  const is5010 = group.version.startsWith('005010');
  const groupIssues = issuesOfGroup(issues, source.groups, index);
  const groupRejected = groupIssues.length > 0;
  const setIssues = group.transactionSets.map((set) => issuesOfSet(issues, group, set));
  const acks = group.transactionSets.map((set, i) => ackSet(set, setIssues[i] ?? [], is5010));
  const sets = group.transactionSets.map((set, i) => ({ set, accepted: !groupRejected && (acks[i]?.accepted ?? false), issues: setIssues[i] ?? [] }));
  const accepted = sets.filter((s) => s.accepted).length;
  return { group, code: groupCode(groupRejected, accepted, sets.length), issues: groupIssues, sets, acks, accepted };
}

/**
 * The verdicts the 997s for these findings will carry, per group (inbound 997 groups left out), without writing
 * them: a receiver decides what to process from this before it spends control numbers on the 997s.
 */
export function assess997(source: Interchange | PartialInterchange, issues: readonly X12Issue[]): GroupVerdict[] {
  return source.groups.flatMap((_, index) => {
    const judged = judgeGroup(source, issues, index);
    return judged === undefined ? [] : [{ group: judged.group, code: judged.code, issues: judged.issues, sets: judged.sets }];
  });
}

/**
 * One 997 per inbound functional group, each in its own interchange addressed back to the sender.
 * `issues` are everything known about the inbound (parseX12 issues plus validateTransactionSet findings);
 * interchange-level issues belong in a TA1 and are ignored here. Inbound 997 groups (GS01 FA) get no 997.
 */
export function build997(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: Ack997Options): Ack997[] {
  const version = source.version === '00501' ? '00501' : '00401';
  const preferred = opts.delimiters ?? (version === '00501' ? DEFAULT_DELIMITERS_00501 : DEFAULT_DELIMITERS_00401);
  const acks: Ack997[] = [];
  source.groups.forEach((_, index) => {
    const judged = judgeGroup(source, issues, index);
    if (judged === undefined) return;
    const { group, code, accepted } = judged;
    const is5010 = group.version.startsWith('005010');
    const received = group.transactionSets.length;
    const groupIssues = judged.issues;
    const setAcks = judged.acks;
    const ge01 = group.ge?.[0] ?? '';
    const included = /^\d{1,6}$/.test(ge01) ? String(Number(ge01)) : String(received);
    const ak1 = ['AK1', group.functionalId, group.controlNumber];
    if (is5010) ak1.push(group.version);
    const ak9 = ['AK9', code, included, String(received), String(accepted), ...unique(groupIssues.map((i) => codeValue(i, 'AK905')))];
    const body = [ak1, ...setAcks.flatMap((a) => a.segments), ak9];
    const senderCode = group.gs[2] ?? '';
    const receiverCode = group.gs[1] ?? '';
    // Delimiters are chosen against everything echoed from the inbound except AK404 copies, which are optional.
    const echoed = [senderCode, receiverCode, source.senderQualifier, source.senderId];
    for (const segment of body) {
      for (const [i, v] of segment.entries()) if (!(segment[0] === 'AK4' && i === COPY_INDEX)) echoed.push(v);
    }
    const d = chooseDelimiters(preferred, echoed.join(''));
    const segments = body.map((segment) =>
      segment.map((v, i) => (segment[0] === 'AK4' && i === COPY_INDEX ? copyOrEmpty(v, d) : scrub(v, d))),
    );
    const numbers = opts.nextControlNumbers();
    const x12 = buildInterchange(
      {
        sender: opts.ourIdentity,
        receiver: { qualifier: scrub(source.senderQualifier, d).slice(0, 2), id: scrub(source.senderId, d).slice(0, 15) },
        controlNumber: numbers.interchange,
        date: opts.date,
        version,
        usage: source.usage === 'T' ? 'T' : 'P',
        groups: [
          {
            functionalId: 'FA',
            senderCode: scrub(senderCode, d),
            receiverCode: scrub(receiverCode, d),
            controlNumber: numbers.group,
            version: is5010 ? '005010' : '004010',
            sets: [{ id: '997', controlNumber: 1, segments }],
          },
        ],
      },
      d,
      { newline: opts.delimiters === undefined },
    );
    acks.push({ groupControlNumber: group.controlNumber, code, interchangeControlNumber: numbers.interchange, x12 });
  });
  return acks;
}
