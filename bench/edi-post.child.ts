import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createGateway } from '../src/gateway.js';

/**
 * Child process of benchX12: one interchange through the whole `POST /v1/edi` path (parse, validate, 997s, 2000
 * orders written) in a fresh, warmed gateway on SQLite; prints its peak RSS over the warmed process and its time.
 * argv: the interchange file, the warm-up interchange file, the number of distinct line SKUs to seed, and `idempotent`
 * to send the measured post with an Idempotency-Key (its fingerprint hashes the whole body) or `any-status` to take a 422.
 */
const [file = '', warmFile = '', skuCount = '50', mode = 'plain'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'edi-post-bench-'));
const config = loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`, GATEWAY_SECRET: randomBytes(32).toString('hex'), LOG_LEVEL: 'silent' });
const gateway = await createGateway(config);
const app = await buildApp(gateway, { logger: false });
await app.ready();
const { orgs, apiKeys, products, ediPartners } = gateway.services;
await orgs.create('bench');
await ediPartners.create({ org: 'bench', name: 'BuyerCo', isa: 'ZZ/BUYERCO', ourIsa: 'ZZ/TIREGATEWAY' });
const { key } = await apiKeys.create({ orgSlug: 'bench', scopes: 'all' });
const orgId = (await orgs.bySlug('bench')).id;
await gateway.database.db.transaction().execute(async (tx) => {
  for (let i = 1; i <= Number(skuCount); i++) await products.create(tx, orgId, { sku: `TIRE-225-45R17-${i}`, name: `Tire ${i}`, status: 'active', stock_qty: 100 });
});

/** `any-status` measures bodies the gateway refuses in part or whole (a 422 is an answer too); otherwise only 200 is. */
const post = async (body: Buffer, idempotencyKey?: string) => {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'text/plain', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) };
  const res = await app.inject({ method: 'POST', url: '/v1/edi', payload: body, headers });
  if (res.statusCode !== 200 && !(mode === 'any-status' && res.statusCode === 422)) throw new Error(`POST /v1/edi answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return { status: res.statusCode, answerBytes: res.rawPayload.length };
};

// Warm the path (JIT, statement cache, pools) with a small interchange, then measure the peak from here on.
await post(readFileSync(warmFile), mode === 'idempotent' ? 'warm-up' : undefined);
// Bytes read before the baseline, as a client holds them: a string payload would make the injection copy it into a
// Buffer inside the measurement, a copy a served request never has (freed or kept whole depending on GC timing).
const body = readFileSync(file);
global.gc?.();
const warmedRss = process.memoryUsage().rss;
const warmedPeak = process.resourceUsage().maxRSS * 1024;
const t0 = process.hrtime.bigint();
const answer = await post(body, mode === 'idempotent' ? 'measured' : undefined);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const peak = process.resourceUsage().maxRSS * 1024;
await app.close();
await gateway.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ bodyBytes: body.length, warmedRss, warmedPeak, peak, ms, ...answer })}\n`);
