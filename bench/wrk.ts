import { execFileSync, execSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CpuProbe, cpuReading, type LoadResult, perRequest, ticksToUs } from './support.js';

/**
 * wrk (Debian's package), the load generator that costs the least CPU here: one C thread on epoll, where autocannon is a
 * node process that needs about a core of its own. Requests are written and answers counted by a Lua script.
 */

/**
 * Rounds of a section's wrk runs (BENCH_WRK_ROUNDS, default 3): a shared machine's load drifts over minutes, so each goal
 * is judged round by round, a route beside its baseline in the same round, and the rounds' median is the figure.
 */
export const WRK_ROUNDS = Math.max(1, Number(process.env.BENCH_WRK_ROUNDS ?? 3));

/** Whether wrk can run here; when it cannot, why (for the table instead of a failed bench). */
export type WrkAvailability = { ok: true } | { ok: false; why: string };

const hasWrk = (): boolean => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    // wrk --version prints its usage and exits 1: found all the same.
    return (err as { status?: number }).status === 1;
  }
};

/** wrk on the PATH, installed from Debian's archive when missing (once per run). */
export function ensureWrk(): WrkAvailability {
  if (hasWrk()) return { ok: true };
  try {
    execSync('apt-get update -qq && apt-get install -y -qq wrk', { stdio: 'ignore', timeout: 300_000 });
  } catch (err) {
    return { ok: false, why: `wrk is not installed and \`apt-get install wrk\` failed (${(err as Error).message.split('\n')[0]})` };
  }
  return hasWrk() ? { ok: true } : { ok: false, why: '`apt-get install wrk` ran but no wrk is on the PATH' };
}

export interface WrkTarget {
  url: string;
  duration: number;
  headers?: Record<string, string>;
  /** POST bodies: Lua that evaluates to a string for request number `n` (1, 2, ...), e.g. `'{"n":' .. n .. '}'`. */
  bodyLua?: string;
  connections?: number;
}

/** Lua string literal. */
const lua = (s: string) => JSON.stringify(s);

/** The script: one request line per call (a fresh body when asked), and the figures as one JSON line at the end. */
function scriptOf(target: WrkTarget): string {
  const headers = Object.entries(target.headers ?? {}).map(([k, v]) => `[${lua(k)}] = ${lua(v)}`).join(', ');
  const path = new URL(target.url).pathname;
  return [
    `local headers = { ${headers} }`,
    'local n = 0',
    target.bodyLua === undefined
      ? // Built in init: wrk fills in the Host header only once the thread knows its target.
        `local fixed\ninit = function() fixed = wrk.format('GET', ${lua(path)}, headers) end\nrequest = function() return fixed end`
      : `request = function()\n  n = n + 1\n  return wrk.format('POST', ${lua(path)}, headers, ${target.bodyLua})\nend`,
    'done = function(summary, latency)',
    '  local e = summary.errors',
    // wrk's own CPU (user + system ticks of every thread), read as it ends: the generator's share of the machine.
    "  local f = io.open('/proc/self/stat')",
    "  local stat = f and f:read('*l') or ''",
    '  if f then f:close() end',
    '  local fields = {}',
    "  for w in (stat:match('%) (.*)$') or ''):gmatch('%S+') do fields[#fields + 1] = w end",
    '  local ticks = (tonumber(fields[12]) or 0) + (tonumber(fields[13]) or 0)',
    '  io.write(string.format(\'WRK {"requests":%d,"us":%d,"errors":%d,"non2xx":%d,"p99":%d,"ticks":%d}\\n\',',
    '    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status, latency:percentile(99), ticks))',
    'end',
  ].join('\n');
}

/**
 * Drives a URL with wrk (one thread, 50 connections by default, as autocannon is run) and keeps the figures the reports
 * use; with a probe, the CPU the server process(es) used during the run, per response. `non2xx` counts the answers of
 * status 400 and above (wrk's own count: a Lua `response` callback would see every status, at a cost per answer).
 */
export async function wrkLoad(target: WrkTarget, probe?: CpuProbe): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-wrk-'));
  try {
    const script = join(dir, 'load.lua');
    writeFileSync(script, scriptOf(target));
    const before = cpuReading(probe);
    const args = ['-t1', `-c${target.connections ?? 50}`, `-d${target.duration}s`, '--timeout', '10s', '-s', script, target.url];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))));
    });
    const line = /^WRK (.*)$/m.exec(out)?.[1];
    if (line === undefined) throw new Error(`wrk printed no figures: ${out}`);
    const r = JSON.parse(line) as { requests: number; us: number; errors: number; non2xx: number; p99: number; ticks: number };
    const base = { requestsPerSec: r.requests / (r.us / 1e6), p99Ms: Math.round(r.p99 / 100) / 10, errors: r.errors, non2xx: r.non2xx, requests: r.requests };
    const generator = r.requests > 0 && r.ticks > 0 ? { generatorCpuUsPerRequest: ticksToUs(r.ticks) / r.requests } : {};
    return { ...base, ...perRequest(probe, before, base.requests), ...generator };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
