import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { benchProductGet } from './products.bench.js';
import { root } from './support.js';

/** `npm run bench`: runs every benchmark with its baseline in this one run and rewrites docs/benchmarks.md. */
const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');

const sections: string[] = [];
const log = (line: string) => process.stdout.write(`${line}\n`);

log(`GET /v1/products/:sku vs bare Fastify (${durationSec}s each, 50 connections)…`);
const products = await benchProductGet(durationSec);
log(`  baseline ${fmt(products.baseline.requestsPerSec)} req/s p99 ${products.baseline.p99Ms} ms; gateway ${fmt(products.gateway.requestsPerSec)} req/s p99 ${products.gateway.p99Ms} ms; ratio ${fmt(products.ratio, 2)}`);
sections.push(
  [
    '## GET /v1/products/:sku with a valid key',
    '',
    'The gateway (`serve`, SQLite, logging at info to /dev/null) and a bare Fastify server returning `{ok:true}`, each in its own process,',
    `driven in turn by autocannon with 50 connections for ${durationSec} s after a 2 s warm-up.`,
    '',
    '| server | requests/s | p99 (ms) |',
    '|---|---:|---:|',
    `| bare Fastify | ${fmt(products.baseline.requestsPerSec)} | ${products.baseline.p99Ms} |`,
    `| gateway | ${fmt(products.gateway.requestsPerSec)} | ${products.gateway.p99Ms} |`,
    '',
    `Ratio ${fmt(products.ratio, 2)} (goal >= 0.70: ${verdict(products.ratio >= 0.7)}); p99 ${products.gateway.p99Ms} ms (goal <= 10 ms: ${verdict(products.gateway.p99Ms <= 10)}).`,
  ].join('\n'),
);

const header = [
  '# Benchmarks',
  '',
  'Written by `npm run bench`; every figure is a ratio against a baseline measured in the same run, because these machines are shared and noisy.',
  `Last run: ${new Date().toISOString()} on Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}).`,
  '',
].join('\n');
writeFileSync(join(root, 'docs/benchmarks.md'), `${header}\n${sections.join('\n\n')}\n`);
log('wrote docs/benchmarks.md');
