import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { X12Parser } from 'node-x12';
import {
  assess997Async,
  write997Interchange,
  buildInterchange,
  type BuildGroup,
  type BuildSet,
  checkInterchange,
  parseX12,
  readSegments,
} from '../src/modules/edi/x12/index.js';

import { median } from './support.js';
const run = promisify(execFile);

export interface X12Bench {
  /** MB (10^6 bytes) per second: parseX12 plus splitting every segment into elements, the same work node-x12 does. */
  mbPerSecOurs: number;
  /** parseX12 alone: envelope checks, segments left in the source text until asked for. */
  mbPerSecOursEnvelopeOnly: number;
  /**
   * What POST /v1/edi does to an interchange before the database, called as the intake (messages/intake/) calls it: parseX12,
   * checkInterchange, assess997Async and write997Interchange (one 997 set per group, one reply interchange), on the same interchange as mbPerSecOurs.
   */
  mbPerSecValidation: number;
  mbPerSecNodeX12: number;
  /** An interchange of many functional groups with one small 850 each, through the same validation path. */
  manyGroups: { groups: number; bodyBytes: number; seconds: number; mbPerSec: number };
  /** mbPerSecOurs / mbPerSecNodeX12 (goal >= 3). */
  ratio: number;
  /** Size of the interchange timed in-process. */
  bodyBytes: number;
  /** Size of the interchange whose parse is measured for RSS. */
  rssBodyBytes: number;
  /** Peak RSS of a child that reads and parses the rssBody interchange. */
  peakRssBytes: number;
  /** peakRssBytes / rssBodyBytes, raw (the Node runtime itself is included). */
  rssRatio: number;
  /** Peak RSS of an idle Node child, for reading rssRatio. */
  idleRssBytes: number;
  /** Peak RSS of a child that only reads the body into a string. */
  readOnlyRssBytes: number;
  /** (peakRssBytes - idleRssBytes) / rssBodyBytes: what reading plus parsing costs over an idle runtime (goal < 3). */
  rssRatioOverIdle: number;
  /** Peak RSS of a child that parses and then splits every segment of every set once. */
  materializeRssBytes: number;
  /** The rssBody interchange through POST /v1/edi in a warmed gateway (SQLite): its time and its peak over the warmed process. */
  post: { sets: number; ms: number; mbPerSec: number; peakOverWarmedBytes: number; ratio: number };
  /** The same post with an Idempotency-Key, in its own warmed gateway. */
  idempotentPost: { peakOverWarmedBytes: number; ratio: number };
  /** One PO of many unknown-SKU lines, and many one-set groups the 997s reject: the answer's size and the peak. */
  bounded: { bigPo: BoundedPost; emptyGroups: BoundedPost };
  /** The whole POST path for the 5.6 MB interchange of 1,250 POs ([16/20]), and node-x12's parse of the same bytes. */
  fullPath: { sets: number; lines: number; bodyBytes: number; mbPerSec: number; nodeX12MbPerSec: number };
}

interface BoundedPost {
  lines: number;
  groups: number;
  bodyBytes: number;
  status: number;
  answerBytes: number;
  peakOverWarmedBytes: number;
  ratio: number;
  ms: number;
}

interface PostReport {
  bodyBytes: number;
  warmedRss: number;
  peak: number;
  ms: number;
  status: number;
  answerBytes: number;
}

async function postThroughGateway(file: string, warmFile: string, lines: number, mode: 'plain' | 'idempotent' | 'any-status' = 'plain'): Promise<PostReport> {
  const child = fileURLToPath(new URL('./edi-post.child.js', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', child, file, warmFile, String(lines), mode], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as PostReport;
}

/** One 850 with `lines` PO1/PID pairs, shaped like the tire orders the gateway receives. */
function purchaseOrder(n: number, lines: number, poPrefix: string): BuildSet {
  const segments: string[][] = [
    ['BEG', '00', 'SA', `${poPrefix}${n}`, '', '20240115'],
    ['REF', 'DP', '042'],
    ['DTM', '002', '20240201'],
    ['N1', 'ST', 'Main Street Tires', '92', `STORE${n % 500}`],
    ['N3', '100 Main St'],
    ['N4', 'Springfield', 'IL', '62701', 'US'],
  ];
  for (let i = 1; i <= lines; i++) {
    segments.push(['PO1', String(i), String((i % 8) + 1), 'EA', `${80 + (i % 40)}.99`, '', 'VP', `TIRE-225-45R17-${i}`, 'UP', '012345678905']);
    segments.push(['PID', 'F', '', '', '', `All-season tire 225/45R17 line ${i}`]);
  }
  segments.push(['CTT', String(lines)]);
  return { id: '850', controlNumber: n, segments };
}

const BENCH_SENDER = { qualifier: 'ZZ', id: 'BUYERCO' };
const BENCH_RECEIVER = { qualifier: 'ZZ', id: 'TIREGATEWAY' };

function poGroup(controlNumber: number, sets: BuildSet[]): BuildGroup {
  return { functionalId: 'PO', senderCode: 'BUYERCO', receiverCode: 'TIREGW', controlNumber, version: '004010', sets };
}

function benchEnvelope(groups: BuildGroup[], controlNumber: number): string {
  return buildInterchange({
    sender: BENCH_SENDER,
    receiver: BENCH_RECEIVER,
    controlNumber,
    date: new Date('2024-01-15T10:30:00Z'),
    version: '00401',
    usage: 'P',
    groups,
  });
}

/** A multi-set 850 interchange built with our writer. */
export function buildBenchInterchange(sets: number, lines: number, opts: { controlNumber?: number; poPrefix?: string } = {}): string {
  const poPrefix = opts.poPrefix ?? 'PO-';
  return benchEnvelope([poGroup(1, Array.from({ length: sets }, (_, i) => purchaseOrder(i + 1, lines, poPrefix)))], opts.controlNumber ?? 1);
}

/** An interchange of `groups` functional groups, each holding one 850 of `lines` lines. */
export function buildManyGroupsInterchange(groups: number, lines: number): string {
  return benchEnvelope(
    Array.from({ length: groups }, (_, i) => poGroup(i + 1, [purchaseOrder(i + 1, lines, 'GRP-')])),
    3,
  );
}

/** `groups` functional groups of one small 850 each (a PO of one line): an order per group, the per-group work at its largest. */
export function buildLeanGroupsInterchange(groups: number, controlNumber: number): string {
  const lean = (n: number): BuildSet => ({
    id: '850',
    controlNumber: 1,
    segments: [['BEG', '00', 'SA', `LEAN-${controlNumber}-${n}`, '', '20240115'], ['PO1', '1', '2', 'EA', '89.99', '', 'VP', 'TIRE-225-45R17-1'], ['CTT', '1']],
  });
  return benchEnvelope(Array.from({ length: groups }, (_, i) => poGroup(i + 1, [lean(i + 1)])), controlNumber);
}

/** One 850 of `lines` lines whose SKUs the catalog does not have: every line a finding, the PO refused (855 RD). */
export function buildUnknownSkuPo(lines: number): string {
  const segments: string[][] = [['BEG', '00', 'SA', 'PO-BIG-1', '', '20240115'], ['N1', 'ST', 'Main Street Tires', '92', 'STORE1']];
  for (let i = 1; i <= lines; i++) segments.push(['PO1', String(i), '1', 'EA', '5', '', 'VP', `NO-SUCH-${i}`]);
  segments.push(['CTT', String(lines)]);
  return benchEnvelope([poGroup(1, [{ id: '850', controlNumber: 1, segments }])], 4);
}

/** `groups` functional groups of one empty 850 each (ST and SE only): every set rejected in its group's 997. */
export function buildEmptyGroupsInterchange(groups: number): string {
  return benchEnvelope(
    Array.from({ length: groups }, (_, i) => poGroup(i + 1, [{ id: '850', controlNumber: 1, segments: [] }])),
    5,
  );
}

async function boundedPost(dir: string, warmFile: string, name: string, body: string, shape: { lines: number; groups: number }): Promise<BoundedPost> {
  const file = join(dir, name);
  writeFileSync(file, body, 'latin1');
  const posted = await postThroughGateway(file, warmFile, 50, 'any-status');
  const peakOverWarmedBytes = Math.max(0, posted.peak - posted.warmedRss);
  return { ...shape, bodyBytes: posted.bodyBytes, status: posted.status, answerBytes: posted.answerBytes, peakOverWarmedBytes, ratio: peakOverWarmedBytes / posted.bodyBytes, ms: posted.ms };
}

/**
 * The part of POST /v1/edi before the database, called as src/modules/edi/messages/intake/ calls it: parseX12, checkInterchange,
 * the findings together, assess997Async, then write997Interchange (one reply interchange). Returns the 997s built and
 * the findings, so a bench can tell it was not timing a rejection.
 */
export async function validationPath(body: string): Promise<{ acks: number; issues: number }> {
  const parsed = parseX12(body);
  const envelope = parsed.ok ? parsed.interchange : parsed.envelope;
  if (envelope === undefined) throw new Error(`bench interchange did not parse: ${parsed.issues[0]?.message ?? ''}`);
  const checks = checkInterchange(envelope);
  // intake.ts adds its unsupported-set findings here; the bench interchanges carry 850s only, so there are none.
  const issues = [...parsed.issues, ...checks.issues];
  const verdicts = await assess997Async(envelope, issues);
  const reply = await write997Interchange(envelope, verdicts, {
    controlNumber: 1,
    ourIdentity: { qualifier: envelope.receiverQualifier, id: envelope.receiverId },
    date: new Date('2024-01-15T10:31:00Z'),
  });
  const acks = reply?.groups.length ?? 0;
  if (acks !== verdicts.length) throw new Error(`${verdicts.length} verdicts but ${acks} 997s`);
  return { acks, issues: issues.length };
}

/** Median wall time in ms of `reps` runs after `warmup` unmeasured ones. */
function time(fn: () => unknown, warmup: number, reps: number): number {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(samples);
}

/** `time` for an async function: median wall time in ms of `reps` awaited runs after `warmup` unmeasured ones. */
async function timeAsync(fn: () => Promise<unknown>, warmup: number, reps: number): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(samples);
}

/** Parses and splits every segment, so the work matches a parser that builds the full model. */
function parseAndMaterialize(body: string): number {
  const result = parseX12(body);
  if (!result.ok) throw new Error(`bench interchange did not parse: ${result.issues[0]?.message ?? ''}`);
  let elements = 0;
  for (const group of result.interchange.groups) {
    for (const set of group.transactionSets) for (const segment of readSegments(set)) elements += segment.elements.length;
  }
  return elements;
}

interface ChildReport {
  maxRssBytes: number;
  bodyBytes: number;
  ok: boolean;
}

async function childRss(mode: string, file: string): Promise<ChildReport> {
  const child = fileURLToPath(new URL('./x12-rss.child.js', import.meta.url));
  const { stdout } = await run(process.execPath, [child, mode, file], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as ChildReport;
}

/** Runs the X12 benchmark: in-process speed against node-x12 on the same bytes, peak RSS in child processes. */
export async function benchX12(
  options: { sets?: number; lines?: number; rssTargetBytes?: number; reps?: number; groups?: number } = {},
): Promise<X12Bench> {
  const { sets = 2000, lines = 50, rssTargetBytes = 10_000_000, reps = 5, groups = 40_000 } = options;
  const body = buildBenchInterchange(sets, lines);
  const mb = body.length / 1e6;
  const oursMs = time(() => parseAndMaterialize(body), 2, reps);
  const envelopeMs = time(() => parseX12(body), 2, reps);
  const checked = await validationPath(body);
  if (checked.issues !== 0 || checked.acks !== 1) throw new Error(`bench interchange: ${checked.issues} findings, ${checked.acks} 997s (expected 0 and 1)`);
  const validationMs = await timeAsync(() => validationPath(body), 2, reps);
  const nodeX12Ms = time(() => new X12Parser(true).parse(body), 1, reps);

  // Many groups: one 997 each, so the per-group work of the path (verdicts, 997 writing) dominates, not the segments.
  const groupsBody = buildManyGroupsInterchange(groups, 1);
  const groupsChecked = await validationPath(groupsBody);
  if (groupsChecked.issues !== 0 || groupsChecked.acks !== groups) {
    throw new Error(`${groups}-group interchange: ${groupsChecked.issues} findings, ${groupsChecked.acks} 997s (expected 0 and ${groups})`);
  }
  const groupsMs = await timeAsync(() => validationPath(groupsBody), 1, Math.max(3, Math.ceil(reps / 2)));

  // The RSS interchange is scaled to the target size from the bytes per set of the timed one.
  const perSet = body.length / sets;
  const rssSets = Math.max(1, Math.round(rssTargetBytes / perSet));
  const rssBody = buildBenchInterchange(rssSets, lines);
  const dir = mkdtempSync(join(tmpdir(), 'x12-bench-'));
  try {
    const file = join(dir, 'interchange.x12');
    writeFileSync(file, rssBody, 'latin1');
    const idle = await childRss('idle', file);
    const read = await childRss('read', file);
    const parsed = await childRss('parse', file);
    const materialized = await childRss('materialize', file);
    if (!parsed.ok) throw new Error('the RSS child could not parse the interchange');
    const warmFile = join(dir, 'warm.x12');
    writeFileSync(warmFile, buildBenchInterchange(5, lines, { controlNumber: 2, poPrefix: 'WARM-' }), 'latin1');
    const posted = await postThroughGateway(file, warmFile, lines);
    const peakOverWarmedBytes = Math.max(0, posted.peak - posted.warmedRss);
    const idempotent = await postThroughGateway(file, warmFile, lines, 'idempotent');
    const idempotentOver = Math.max(0, idempotent.peak - idempotent.warmedRss);
    // The issue's throughput case ([16/20]): 1,250 POs of 43 lines, about 5.6 MB, whole path, node-x12 on the same bytes.
    const fullBody = buildBenchInterchange(1250, 43, { controlNumber: 6 });
    const fullFile = join(dir, 'full-path.x12');
    writeFileSync(fullFile, fullBody, 'latin1');
    const full = await postThroughGateway(fullFile, warmFile, lines);
    const fullNodeX12Ms = time(() => new X12Parser(true).parse(fullBody), 1, reps);
    const bigPo = await boundedPost(dir, warmFile, 'big-po.x12', buildUnknownSkuPo(90_000), { lines: 90_000, groups: 1 });
    const emptyGroups = await boundedPost(dir, warmFile, 'empty-groups.x12', buildEmptyGroupsInterchange(groups), { lines: 0, groups });
    const mbPerSecOurs = mb / (oursMs / 1000);
    const mbPerSecNodeX12 = mb / (nodeX12Ms / 1000);
    return {
      mbPerSecOurs,
      mbPerSecOursEnvelopeOnly: mb / (envelopeMs / 1000),
      mbPerSecValidation: mb / (validationMs / 1000),
      mbPerSecNodeX12,
      manyGroups: { groups, bodyBytes: groupsBody.length, seconds: groupsMs / 1000, mbPerSec: groupsBody.length / 1e6 / (groupsMs / 1000) },
      ratio: mbPerSecOurs / mbPerSecNodeX12,
      bodyBytes: body.length,
      rssBodyBytes: rssBody.length,
      peakRssBytes: parsed.maxRssBytes,
      rssRatio: parsed.maxRssBytes / rssBody.length,
      idleRssBytes: idle.maxRssBytes,
      readOnlyRssBytes: read.maxRssBytes,
      rssRatioOverIdle: (parsed.maxRssBytes - idle.maxRssBytes) / rssBody.length,
      materializeRssBytes: materialized.maxRssBytes,
      post: {
        sets: rssSets,
        ms: posted.ms,
        mbPerSec: posted.bodyBytes / 1e6 / (posted.ms / 1000),
        peakOverWarmedBytes,
        ratio: peakOverWarmedBytes / posted.bodyBytes,
      },
      idempotentPost: {
        peakOverWarmedBytes: idempotentOver,
        ratio: idempotentOver / idempotent.bodyBytes,
      },
      bounded: { bigPo, emptyGroups },
      fullPath: { sets: 1250, lines: 43, bodyBytes: full.bodyBytes, mbPerSec: full.bodyBytes / 1e6 / (full.ms / 1000), nodeX12MbPerSec: fullBody.length / 1e6 / (fullNodeX12Ms / 1000) },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
