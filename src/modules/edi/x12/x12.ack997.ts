import { isSupportedGroupVersion } from './x12.envelope.js';
import { ackCode, releaseOf } from './x12.ack-codes.js';
import { chooseDelimiters, EchoedChars, echoX12, echoX12Id, scrub } from './x12.delimiters.js';
import { type Findings, indexFindings } from './x12.findings.js';
import { delimitersFor, envelopeVersion, ta1Elements, type Ta1Code } from './x12.ta1.js';
import { pace } from '../../../platform/core/pacer.js';
import { tolerated, type ValidationLevel } from './x12.tolerance.js';
import { type BuildGroup, type BuildSet, buildInterchange, buildInterchangePaced, type Party } from './x12.writer.js';
import type { Delimiters, FunctionalGroup, Interchange, PartialInterchange, TransactionSet, X12Issue } from './x12.types.js';

type AckCode = 'A' | 'E' | 'P' | 'R';

interface Ack997Options {
  /** Called once per 997 produced (one interchange each); the caller owns and persists its counters. */
  nextControlNumbers: () => { interchange: number; group: number };
  ourIdentity: Party;
  date: Date;
  /** Delimiters for the outbound 997s; defaults to * > ~ (^ from ISA12 00402) with newlines. */
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
  withErrors: boolean;
}

/** Index of AK404 (the copy of the bad value) in an AK4 element array. */
const COPY_INDEX = 4;

/** Widths the 997 allows for the values it echoes (AN/ID maximums of the elements they land in). */
const WIDTH = { functionalId: 2, groupControl: 9, version: 12, setId: 3, setControl: 9, st03: 35, segmentId: 3, loopId: 6, elementRef: 4, appCode: 15 } as const;

/** The release from which a 997 carries AK103 (GS08) and AK203 (ST03). */
const AK103_FROM = '005010';

/**
 * The version a 997 answers a group in (its GS08, and the version whose code lists it writes): the group's GS08 when
 * it names a release the gateway takes (any industry suffix kept, e.g. 004010VICS; never one our own parser would
 * refuse, such as 000001), else the release of the inbound ISA12 (00401 -> 004010), else 004010.
 */
function ackVersion(group: FunctionalGroup, isaVersion: string): string {
  const gs08 = group.version;
  if (/^\d{6}[A-Z0-9]{0,6}$/.test(gs08) && isSupportedGroupVersion(gs08)) return gs08;
  const fromIsa = /^\d{5}$/.test(isaVersion) ? `${envelopeVersion(isaVersion)}0` : undefined;
  return fromIsa ?? '004010';
}

/**
 * AK2 loop of one set: AK3/AK4 per segment in error, then AK5, every code as `version` holds it. Every echoed value
 * is cut to its element's width and to printable ASCII here; AK404 holds the copy until delimiters are known.
 * `groupRejected`: the group's own findings reject it, so the set is rejected too (AK5 R, without an AK502 code when
 * the set itself is sound). At the lenient level a set whose findings are all tolerated is accepted with errors noted
 * (AK5 E, with its AK3/AK4).
 */
function ackSet(set: TransactionSet, issues: readonly X12Issue[], version: string, groupRejected: boolean, level: ValidationLevel): SetAck {
  const release = releaseOf(version) ?? '004010';
  const ak2 = ['AK2', echoX12(set.id, WIDTH.setId), echoX12(set.controlNumber, WIDTH.setControl)];
  const st03 = echoX12(set.st[2] ?? '', WIDTH.st03);
  if (release >= AK103_FROM && st03 !== '') ak2.push(st03);
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
    segments.push(['AK3', echoX12Id(head.segmentId ?? '', WIDTH.segmentId), positionInSet, loopId, ackCode('720', segmentCode, version)]);
    for (const issue of list) {
      const elementCode = codeValue(issue, 'AK403');
      if (elementCode === undefined) continue;
      segments.push(['AK4', String(issue.element ?? ''), echoX12(issue.elementRef ?? '', WIDTH.elementRef), ackCode('723', elementCode, version), echoX12(issue.value ?? '', MAX_COPY)]);
    }
  }
  const blocking = level === 'lenient' ? issues.filter((i) => !tolerated(i)) : issues;
  const accepted = blocking.length === 0 && !groupRejected;
  const withErrors = accepted && issues.length > 0;
  const codes = unique([...setCodes, detail.length > 0 ? '5' : undefined].map((c) => (c === undefined ? undefined : ackCode('718', c, version))));
  segments.push(['AK5', ackCode('717', accepted ? (withErrors ? 'E' : 'A') : 'R', version), ...codes]);
  return { segments, accepted, withErrors };
}

function groupCode(groupRejected: boolean, acks: readonly SetAck[]): AckCode {
  if (groupRejected) return 'R';
  const accepted = acks.filter((a) => a.accepted).length;
  if (accepted === acks.length) return acks.some((a) => a.withErrors) ? 'E' : 'A';
  return accepted === 0 ? 'R' : 'P';
}

/** AK404 is dropped rather than mangled when the bad value contains a delimiter of the 997. */
function copyOrEmpty(value: string, delimiters: Delimiters): string {
  return scrub(value, delimiters) === value ? value : '';
}

/** What the 997 of one group says about the group and each of its sets. */
export interface GroupVerdict {
  group: FunctionalGroup;
  /** AK901: A, E (every set accepted, some with errors noted), P or R. */
  code: AckCode;
  /** Group-level findings (AK905); any of them rejects every set of the group. */
  issues: X12Issue[];
  sets: SetVerdict[];
}

export interface SetVerdict {
  set: TransactionSet;
  /** AK5 A or E: the receiver must process exactly these sets (never in a rejected group). */
  accepted: boolean;
  /** AK5 E: accepted at the lenient level with findings it tolerates (reported in AK3/AK4, listed in `issues`). */
  withErrors: boolean;
  /** The set's own findings (AK5, AK3, AK4). */
  issues: X12Issue[];
}

interface Judged extends GroupVerdict {
  acks: SetAck[];
  accepted: number;
  /** GS08 of the 997 that answers this group, and the version whose codes it carries. */
  version: string;
}

/** How assess997 judges. */
export interface AssessOptions {
  /** `strict` (default): any finding rejects its set. `lenient`: see ValidationLevel and `tolerated`. */
  level?: ValidationLevel;
}

function judgeGroup(group: FunctionalGroup, index: Findings, isaVersion: string, level: ValidationLevel): Judged | undefined {
  if (group.functionalId === 'FA') return undefined;
  const version = ackVersion(group, isaVersion);
  const groupIssues = index.group(group);
  const groupRejected = groupIssues.length > 0;
  const sets: SetVerdict[] = [];
  const acks: SetAck[] = [];
  for (const set of group.transactionSets) {
    const issues = index.set(set);
    const ack = ackSet(set, issues, version, groupRejected, level);
    acks.push(ack);
    sets.push({ set, accepted: ack.accepted, withErrors: ack.withErrors, issues });
  }
  const accepted = sets.filter((s) => s.accepted).length;
  return { group, code: groupCode(groupRejected, acks), issues: groupIssues, sets, acks, accepted, version };
}

/** The judged groups one at a time, so a driver can pace itself. */
function* judgeAll(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: AssessOptions): Generator<{ judged: Judged | undefined }> {
  const index = indexFindings(source.groups, issues);
  const level = opts.level ?? 'strict';
  for (const group of source.groups) yield { judged: judgeGroup(group, index, source.version, level) };
}

/** Runs `step` on every judged group, yielding to the event loop every few milliseconds (pace). */
async function paced(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: AssessOptions, step: (judged: Judged) => void): Promise<void> {
  for (const { judged } of judgeAll(source, issues, opts)) {
    if (judged !== undefined) step(judged);
    await pace();
  }
}

/** What each verdict was judged from, so its 997 is written without judging the group again. */
const judgedOf = new WeakMap<GroupVerdict, Judged>();

function verdictOf(judged: Judged): GroupVerdict {
  const verdict: GroupVerdict = { group: judged.group, code: judged.code, issues: judged.issues, sets: judged.sets };
  judgedOf.set(verdict, judged);
  return verdict;
}

function judgedFor(verdict: GroupVerdict): Judged {
  const judged = judgedOf.get(verdict);
  if (judged === undefined) throw new Error('997s are written from the verdicts of assess997, unchanged');
  return judged;
}

/**
 * The verdicts the 997s for these findings will carry, per group (inbound 997 groups left out), without writing
 * them: a receiver decides what to process from this before it spends control numbers on the 997s.
 */
export function assess997(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: AssessOptions = {}): GroupVerdict[] {
  const out: GroupVerdict[] = [];
  for (const { judged } of judgeAll(source, issues, opts)) if (judged !== undefined) out.push(verdictOf(judged));
  return out;
}

/** assess997 that yields to the event loop every few thousand groups and sets, for large bodies in a server. */
export async function assess997Async(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: AssessOptions = {}): Promise<GroupVerdict[]> {
  const out: GroupVerdict[] = [];
  await paced(source, issues, opts, (judged) => out.push(verdictOf(judged)));
  return out;
}

/** AK905 for a group finding that has no code of its own (a segment outside any set, a rejected interchange). */
const GROUP_REJECTED = '1';

/**
 * AK905..AK909: a rejected group always names a reason, as the group's version holds it. A group finding X12 has no
 * AK905 code for is reported as 1 (functional group not supported: we do not take it); the HTTP answer and a TA1
 * carry the precise finding.
 */
function groupCodes(issues: readonly X12Issue[], version: string): string[] {
  return unique(issues.map((i) => ackCode('716', codeValue(i, 'AK905') ?? GROUP_REJECTED, version)));
}

/** The 997 body of one judged group (AK1..AK9), and the values echoed from the inbound that choose the delimiters. */
function ackBody(judged: Judged): string[][] {
  const { group, code, accepted, version } = judged;
  const received = group.transactionSets.length;
  const ge01 = group.ge?.[0] ?? '';
  const included = /^\d{1,6}$/.test(ge01) ? String(Number(ge01)) : String(received);
  const ak1 = ['AK1', echoX12(group.functionalId, WIDTH.functionalId), echoX12(group.controlNumber, WIDTH.groupControl)];
  if ((releaseOf(version) ?? '') >= AK103_FROM) ak1.push(echoX12(group.version, WIDTH.version));
  const ak9 = ['AK9', ackCode('715', code, version), included, String(received), String(accepted), ...groupCodes(judged.issues, version)];
  return [ak1, ...judged.acks.flatMap((a) => a.segments), ak9];
}

/** Every value of a 997 body but the AK404 copies (optional, dropped when unsafe), for choosing delimiters. */
function echoedIn(body: readonly string[][], into: EchoedChars): void {
  for (const segment of body) {
    for (const [i, v] of segment.entries()) if (!(segment[0] === 'AK4' && i === COPY_INDEX)) into.add(v);
  }
}

function scrubBody(body: readonly string[][], delimiters: Delimiters): string[][] {
  return body.map((segment) => segment.map((v, i) => (segment[0] === 'AK4' && i === COPY_INDEX ? copyOrEmpty(v, delimiters) : scrub(v, delimiters))));
}

/** Writes the 997 of one judged group, in its own interchange. */
function write997(source: Interchange | PartialInterchange, judged: Judged, opts: Ack997Options): Ack997 {
  const envelope = envelopeVersion(source.version);
  const preferred = delimitersFor(envelope, opts.delimiters);
  const { group, code } = judged;
  const body = ackBody(judged);
  const senderCode = echoX12(group.gs[2] ?? '', WIDTH.appCode);
  const receiverCode = echoX12(group.gs[1] ?? '', WIDTH.appCode);
  const partnerQualifier = echoX12(source.senderQualifier, 2);
  const partnerId = echoX12(source.senderId, 15);
  const echoed = EchoedChars.of(senderCode, receiverCode, partnerQualifier, partnerId);
  echoedIn(body, echoed);
  const delimiters = chooseDelimiters(preferred, echoed);
  const numbers = opts.nextControlNumbers();
  const x12 = buildInterchange(
    {
      sender: opts.ourIdentity,
      receiver: { qualifier: scrub(partnerQualifier, delimiters), id: scrub(partnerId, delimiters) },
      controlNumber: numbers.interchange,
      date: opts.date,
      version: envelope,
      usage: source.usage === 'T' ? 'T' : 'P',
      groups: [
        {
          functionalId: 'FA',
          senderCode: scrub(senderCode, delimiters),
          receiverCode: scrub(receiverCode, delimiters),
          controlNumber: numbers.group,
          version: scrub(judged.version, delimiters),
          sets: [{ id: '997', controlNumber: 1, segments: scrubBody(body, delimiters) }],
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
 * The intake answers with write997Interchange (one interchange for them all); this per-group form is what the unit and
 * property tests read one 997 at a time with.
 */
export function build997(source: Interchange | PartialInterchange, issues: readonly X12Issue[], opts: Ack997Options & AssessOptions): Ack997[] {
  const acks: Ack997[] = [];
  for (const { judged } of judgeAll(source, issues, opts)) if (judged !== undefined) acks.push(write997(source, judged, opts));
  return acks;
}


/** What write997Interchange needs besides the inbound and its verdicts. */
export interface AckInterchangeOptions {
  /**
   * The first of `ackControlNumbersNeeded(verdicts)` numbers the caller reserved: ISA13 is this one, and the FA
   * groups' GS06 are this one and the ones after it, in the order the groups are written.
   */
  controlNumber: number;
  ourIdentity: Party;
  date: Date;
  /** TA104/TA105 when a TA1 is owed: it goes between the ISA and the first GS. */
  ta1?: { code: Ta1Code; noteCode: string };
  /** Defaults to * > ~ (^ from ISA12 00402) with a newline after each segment. */
  delimiters?: Delimiters;
}

/** How the answer acknowledged one inbound group. */
export interface GroupAck {
  verdict: GroupVerdict;
  /** GS06 of the inbound group. */
  group: string;
  /** AK901 as written. */
  code: string;
  /** GS06 of the FA group and ST02 of the 997 set that carry it. */
  ackGroupControlNumber: number;
  setControlNumber: string;
}

export interface AckInterchange {
  x12: string;
  /** ISA13 of the answer. */
  controlNumber: number;
  /** One per verdict, in the verdicts' order. */
  groups: GroupAck[];
}

/** FA groups of an answer: one per acknowledged version and application sender/receiver pair, in order of first use. */
function faGroupsOf(verdicts: readonly GroupVerdict[]): Map<string, Judged[]> {
  const groups = new Map<string, Judged[]>();
  for (const verdict of verdicts) addToFaGroup(groups, verdict);
  return groups;
}

function addToFaGroup(groups: Map<string, Judged[]>, verdict: GroupVerdict): void {
  const judged = judgedFor(verdict);
  const key = `${judged.version}\u0000${judged.group.gs[1] ?? ''}\u0000${judged.group.gs[2] ?? ''}`;
  const list = groups.get(key);
  if (list === undefined) groups.set(key, [judged]);
  else list.push(judged);
}

/** faGroupsOf per verdict list, made once: the control numbers are counted from it, then the 997s written from it. */
const faGroupsMade = new WeakMap<readonly GroupVerdict[], Map<string, Judged[]>>();

/** faGroupsOf yielding while it sorts (40,000 groups are ~20 ms of it), kept for write997Interchange. */
async function faGroupsPaced(verdicts: readonly GroupVerdict[]): Promise<Map<string, Judged[]>> {
  const made = faGroupsMade.get(verdicts);
  if (made !== undefined) return made;
  const groups = new Map<string, Judged[]>();
  for (const verdict of verdicts) {
    addToFaGroup(groups, verdict);
    await pace();
  }
  faGroupsMade.set(verdicts, groups);
  return groups;
}

/**
 * Control numbers write997Interchange takes: one per FA group it writes (the first is the ISA13 too), at least one.
 * An FA group holds the 997s of every inbound group of one version (GS08) and one GS02/GS03 pair, so a partner's
 * interchange of one version needs one number however many groups it has.
 */
export function ackControlNumbersNeeded(verdicts: readonly GroupVerdict[]): number {
  return Math.max(1, (faGroupsMade.get(verdicts) ?? faGroupsOf(verdicts)).size);
}

/** ackControlNumbersNeeded yielding to the event loop as it goes, for large bodies in a server. */
export async function ackControlNumbersNeededPaced(verdicts: readonly GroupVerdict[]): Promise<number> {
  return Math.max(1, (await faGroupsPaced(verdicts)).size);
}

/**
 * Everything owed for one inbound interchange in one outbound interchange: the TA1 if one is owed, then one FA group
 * per acknowledged version (and GS02/GS03 pair) holding a 997 set per inbound group, ST02 0001.. within each FA
 * group. The envelope is the inbound's ISA12 version (00200..00801, else 00401); each FA group's GS08 is the version
 * of the groups it acknowledges, and every code is one that version holds. Built as one array join, yielding to the
 * event loop every few thousand groups and sets. Undefined when there is nothing to send (no verdict and no TA1).
 */
export async function write997Interchange(source: Interchange | PartialInterchange, verdicts: readonly GroupVerdict[], opts: AckInterchangeOptions): Promise<AckInterchange | undefined> {
  if (verdicts.length === 0 && opts.ta1 === undefined) return undefined;
  const envelope = envelopeVersion(source.version);
  const faGroups = [...(await faGroupsPaced(verdicts)).values()];
  const partnerQualifier = echoX12(source.senderQualifier, 2);
  const partnerId = echoX12(source.senderId, 15);
  // Delimiters are chosen against everything echoed from the inbound, AK404 copies aside.
  const echoed = EchoedChars.of(partnerQualifier, partnerId);
  const bodies = new Map<Judged, string[][]>();
  for (const list of faGroups) {
    for (const judged of list) {
      const body = ackBody(judged);
      bodies.set(judged, body);
      echoed.add(judged.group.gs[1] ?? '');
      echoed.add(judged.group.gs[2] ?? '');
      echoed.add(judged.version);
      echoedIn(body, echoed);
      await pace();
    }
  }
  const delimiters = chooseDelimiters(delimitersFor(envelope, opts.delimiters), echoed);
  const clean = (v: string): string => scrub(v, delimiters);
  const groups = new Map<Judged, Omit<GroupAck, 'verdict'>>();
  const written: BuildGroup[] = [];
  for (const [g, list] of faGroups.entries()) {
    const gs06 = opts.controlNumber + g;
    const first = list[0];
    const sets: BuildSet[] = [];
    for (const [i, judged] of list.entries()) {
      const segments = scrubBody(bodies.get(judged) ?? [], delimiters);
      const code = segments[segments.length - 1]?.[1] ?? judged.code;
      groups.set(judged, { group: judged.group.controlNumber, code, ackGroupControlNumber: gs06, setControlNumber: String(i + 1).padStart(4, '0') });
      sets.push({ id: '997', controlNumber: i + 1, segments });
      await pace();
    }
    written.push({
      functionalId: 'FA',
      senderCode: clean(echoX12(first?.group.gs[2] ?? '', WIDTH.appCode)),
      receiverCode: clean(echoX12(first?.group.gs[1] ?? '', WIDTH.appCode)),
      controlNumber: gs06,
      version: clean(first?.version ?? ''),
      sets,
    });
  }
  const x12 = await buildInterchangePaced(
    {
      sender: opts.ourIdentity,
      receiver: { qualifier: clean(partnerQualifier), id: clean(partnerId) },
      controlNumber: opts.controlNumber,
      date: opts.date,
      version: envelope,
      usage: source.usage === 'T' ? 'T' : 'P',
      ...(opts.ta1 === undefined ? {} : { leading: [ta1Elements(source.isa, opts.ta1, opts.date)] }),
      groups: written,
    },
    delimiters,
    { newline: opts.delimiters === undefined },
  );
  const acks: GroupAck[] = [];
  for (const verdict of verdicts) {
    const ack = groups.get(judgedFor(verdict));
    if (ack === undefined) throw new Error('a verdict was not written');
    acks.push({ ...ack, verdict });
    await pace();
  }
  return { x12, controlNumber: opts.controlNumber, groups: acks };
}
