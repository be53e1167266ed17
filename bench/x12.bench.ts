import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { X12Parser } from 'node-x12';
import { parseX12, readSegments } from '../src/modules/edi/x12/x12.parser.js';
import { buildInterchange, type BuildSet } from '../src/modules/edi/x12/x12.writer.js';

const run = promisify(execFile);

export interface X12Bench {
  /** MB (10^6 bytes) per second: parseX12 plus splitting every segment into elements, the same work node-x12 does. */
  mbPerSecOurs: number;
  /** parseX12 alone: envelope checks, segments left in the source text until asked for. */
  mbPerSecOursEnvelopeOnly: number;
  mbPerSecNodeX12: number;
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
  post: { ms: number; mbPerSec: number; peakOverWarmedBytes: number; ratio: number };
}

interface PostReport {
  bodyBytes: number;
  warmedRss: number;
  peak: number;
  ms: number;
}

async function postThroughGateway(file: string, warmFile: string, lines: number): Promise<PostReport> {
  const child = fileURLToPath(new URL('./edi-post.child.js', import.meta.url));
  const { stdout } = await run(process.execPath, ['--expose-gc', child, file, warmFile, String(lines)], { maxBuffer: 1 << 20 });
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

/** A multi-set 850 interchange built with our writer. */
export function buildBenchInterchange(sets: number, lines: number, opts: { controlNumber?: number; poPrefix?: string } = {}): string {
  const poPrefix = opts.poPrefix ?? 'PO-';
  return buildInterchange({
    sender: { qualifier: 'ZZ', id: 'BUYERCO' },
    receiver: { qualifier: 'ZZ', id: 'TIREGATEWAY' },
    controlNumber: opts.controlNumber ?? 1,
    date: new Date('2024-01-15T10:30:00Z'),
    version: '00401',
    usage: 'P',
    groups: [
      {
        functionalId: 'PO',
        senderCode: 'BUYERCO',
        receiverCode: 'TIREGW',
        controlNumber: 1,
        version: '004010',
        sets: Array.from({ length: sets }, (_, i) => purchaseOrder(i + 1, lines, poPrefix)),
      },
    ],
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
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
export async function benchX12(options: { sets?: number; lines?: number; rssTargetBytes?: number; reps?: number } = {}): Promise<X12Bench> {
  const { sets = 2000, lines = 50, rssTargetBytes = 10_000_000, reps = 5 } = options;
  const body = buildBenchInterchange(sets, lines);
  const mb = body.length / 1e6;
  const oursMs = time(() => parseAndMaterialize(body), 2, reps);
  const envelopeMs = time(() => parseX12(body), 2, reps);
  const nodeX12Ms = time(() => new X12Parser(true).parse(body), 1, reps);

  // The RSS interchange is scaled to the target size from the bytes per set of the timed one.
  const perSet = body.length / sets;
  const rssBody = buildBenchInterchange(Math.max(1, Math.round(rssTargetBytes / perSet)), lines);
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
    const mbPerSecOurs = mb / (oursMs / 1000);
    const mbPerSecNodeX12 = mb / (nodeX12Ms / 1000);
    return {
      mbPerSecOurs,
      mbPerSecOursEnvelopeOnly: mb / (envelopeMs / 1000),
      mbPerSecNodeX12,
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
        ms: posted.ms,
        mbPerSec: posted.bodyBytes / 1e6 / (posted.ms / 1000),
        peakOverWarmedBytes,
        ratio: peakOverWarmedBytes / posted.bodyBytes,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
