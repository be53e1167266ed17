import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../src/modules/telematics/providers/catalog.js';
import type { Operation } from '../../src/platform/operations/operation.js';
import { startHubSim, type HubSim } from '../../src/sim/hub-sim.js';
import { readEdiFixture, seedPartners } from '../modules/edi/edi-support.js';
import { FIXTURES, PORTAL_FIXTURES, portalKeyOf, seedOrg } from '../operations/fixtures.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { type Call, restRequest } from '../support/operations.js';
import { doorHeaders, injectOrHang } from './support.js';

/** A loopback HTTP server that records every request it gets: any request at all means a client steered the gateway. */
interface Recorder {
  url: string;
  host: string;
  requests: string[];
  close(): Promise<void>;
}

async function startRecorder(answer = '{}'): Promise<Recorder> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Every string leaf of a value, each replaced in turn by `by` (one variant per leaf), plus every leaf at once. */
function leafVariants(value: unknown, by: string): unknown[] {
  const variants: unknown[] = [];
  const walk = (v: unknown, set: (x: unknown) => unknown): void => {
    if (typeof v === 'string') variants.push(set(by));
    else if (Array.isArray(v)) {
      const items: unknown[] = v;
      items.forEach((item, i) => walk(item, (x) => set(items.map((y, j) => (i === j ? x : y)))));
    } else if (v !== null && typeof v === 'object') for (const [k, item] of Object.entries(v)) walk(item, (x) => set({ ...v, [k]: x }));
  };
  walk(value, (x) => x);
  const all = (v: unknown): unknown =>
    typeof v === 'string' ? by : Array.isArray(v) ? v.map(all) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, all(x)])) : v;
  variants.push(all(value));
  return variants;
}

describe.each(dialects)('no request field makes the gateway call a URL of the client’s choosing (%s)', (dialect) => {
  let canary: Recorder;
  let partnerInbox: Recorder;
  let hub: HubSim;
  let h: Harness;
  let apiKey: string;
  let portalKey: string;
  let forms: string[];
  let ips = 0;
  beforeAll(async () => {
    canary = await startRecorder();
    partnerInbox = await startRecorder();
    hub = await startHubSim();
    h = await startHarness(dialect, { env: { HUB_URL: hub.url, RATE_LIMIT_PER_MINUTE: '1000000' } });
    // The operator sets a partner's outbound URL (CLI); documents the API causes must go there and only there.
    await seedOrg(h, 'owner');
    await seedPartners(h, 'owner', { outboundUrl: `${partnerInbox.url}/as2` });
    apiKey = await seedOrg(h, 'owner');
    portalKey = await portalKeyOf(h, 'owner');
    forms = [`${canary.url}/ssrf`, `//${canary.host}/ssrf`, canary.host, `http://localhost:${canary.host.split(':')[1] ?? ''}/ssrf`, `${canary.url}/ssrf#@example.com`];
  });
  afterAll(async () => {
    await h?.close();
    await hub?.close();
    await partnerInbox?.close();
    await canary?.close();
  });

  /** Headers a proxy or a client could set to name "where the gateway is" or "where to call back". */
  const steering = (): Record<string, string> => ({
    host: canary.host,
    'x-forwarded-host': canary.host,
    'x-forwarded-proto': 'http',
    forwarded: `host=${canary.host};proto=http`,
    referer: `${canary.url}/ref`,
    'x-original-url': `${canary.url}/orig`,
  });
  const doorOf = (op: Operation) => doorHeaders(op, { apiKey, portalKey });
  const send = (op: Operation, call: Call) =>
    injectOrHang(h, { ...restRequest(op, call, { ...steering(), ...doorOf(op) }), remoteAddress: `10.88.${Math.floor(++ips / 250) % 250}.${(ips % 250) + 1}` }, op.name);

  it('sends the canary URL in every string field of every operation, drives the flows, and the canary hears nothing', { timeout: 300_000 }, async () => {
    const problems: string[] = [];
    const connections: string[] = [];
    for (const { operation: op } of h.gateway.operations) {
      const fixture = FIXTURES[op.name] ?? PORTAL_FIXTURES[op.name];
      const call: Call = fixture
        ? await fixture(h, 'owner')
        : { ...(op.example.params ? { params: op.example.params } : {}), ...(op.example.query ? { query: op.example.query } : {}), ...(op.example.body === undefined ? {} : { body: op.example.body }) };
      // The valid call itself, under the steering headers.
      const plain = await send(op, call);
      if (plain.statusCode >= 500) problems.push(`${op.name} valid call: ${plain.statusCode} ${plain.body.slice(0, 200)}`);
      for (const form of forms) {
        for (const part of ['body', 'query', 'params'] as const) {
          if (call[part] === undefined) continue;
          for (const variant of leafVariants(call[part], form)) {
            const res = await send(op, { ...call, [part]: variant });
            if (res.statusCode >= 500) problems.push(`${op.name} ${part} ${JSON.stringify(variant).slice(0, 120)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
            if (op.name === 'telematics_connect' && res.statusCode === 200) connections.push(res.json<{ connection_id: string }>().connection_id);
          }
        }
      }
    }

    // POST /connect for every provider: the canary as every credential, and as the URL-ish fields a client might add.
    for (const provider of PROVIDERS) {
      for (const credentials of [
        { api_key: canary.url },
        { username: canary.url, password: canary.url },
        { username: 'fleet@example.com', password: 'x', base_url: canary.url, token_url: canary.url, url: canary.url, endpoint: canary.url },
      ]) {
        // A provider the gateway cannot connect yet takes no token at all: nothing to steer there.
        const issued = await h.gateway.services.connectTokens.issue({ org: 'owner', provider: provider.id }).catch(() => undefined);
        if (!issued) continue;
        const { connect_token } = issued;
        for (const payload of [
          { connect_token, provider: provider.id, credentials },
          { connect_token, provider: provider.id, credentials, redirect_uri: canary.url, callback_url: canary.url, base_url: canary.url },
        ]) {
          const res = await injectOrHang(
            h,
            { method: 'POST', url: '/connect', payload, headers: { 'content-type': 'application/json', ...steering() }, remoteAddress: `10.89.${Math.floor(++ips / 250) % 250}.${(ips % 250) + 1}` },
            `connect ${provider.id}`,
          );
          if (res.statusCode >= 500) problems.push(`connect ${provider.id} ${JSON.stringify(credentials)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
          if (res.statusCode !== 200) continue;
          const body = res.json<{ connection_id: string; next_step?: { authorize_url?: string } }>();
          connections.push(body.connection_id);
          // The vendor's redirect back, with the canary in every parameter a client controls (the state is the real one).
          const state = body.next_step?.authorize_url === undefined ? undefined : new URL(body.next_step.authorize_url).searchParams.get('state');
          if (state) {
            const q = new URLSearchParams({ state, code: canary.url, redirect_uri: canary.url, iss: canary.url, token_url: canary.url });
            const cb = await injectOrHang(h, { method: 'GET', url: `/connect/oauth/callback?${q.toString()}`, headers: steering() }, 'oauth callback');
            if (cb.statusCode >= 500 && cb.statusCode !== 502) problems.push(`callback ${provider.id}: ${cb.statusCode}`);
          }
        }
      }
    }

    // Interchanges from the partner, one naming the canary as its ship-to party; an EDI order acknowledged (with the
    // canary in the status note) makes an 855 that goes to the partner's operator-set URL, and only there.
    const interchange = (po: string, shipTo?: string) => {
      const control = String(Math.floor(Math.random() * 900_000_000) + 100_000_000);
      const text = readEdiFixture('po-4010-single.x12').replaceAll('000000101', control).replace(/BEG\*00\*SA\*[^*]+/, `BEG*00*SA*${po}`);
      return shipTo === undefined ? text : text.replace(/N1\*ST\*[^*~]*/, `N1*ST*${shipTo}`);
    };
    const ediHeaders = { 'content-type': 'text/plain', authorization: `Bearer ${apiKey}`, ...steering() };
    await injectOrHang(h, { method: 'POST', url: '/v1/edi', payload: interchange('PO-SSRF-1', `${canary.host}/ssrf`), headers: ediHeaders }, 'edi canary');
    const intake = await injectOrHang(h, { method: 'POST', url: '/v1/edi', payload: interchange('PO-SSRF-2'), headers: ediHeaders }, 'edi');
    expect(intake.statusCode, intake.body).toBe(200);
    const ack = await injectOrHang(h, { method: 'POST', url: '/v1/orders/PO-SSRF-2/ack', headers: { authorization: `Bearer ${apiKey}`, ...steering() } }, 'ack');
    expect(ack.statusCode, ack.body).toBe(200);

    // Drive the flows: poll every connection made, then drain every delivery (hub and partner).
    for (const id of connections) {
      await injectOrHang(h, { method: 'POST', url: `/v1/telematics/connections/${id}/run`, headers: { authorization: `Bearer ${apiKey}`, ...steering() } }, `run ${id}`);
    }
    for (let i = 0; i < 20 && (await h.gateway.delivery.drainOnce()) > 0; i++);

    expect(problems).toEqual([]);
    expect(connections.length, 'some connects succeeded, so polling ran').toBeGreaterThan(0);
    expect(hub.received(), 'the flows did reach the operator-set hub').toBeGreaterThan(0);
    expect(partnerInbox.requests.length, 'EDI documents did reach the operator-set partner URL').toBeGreaterThan(0);
    expect(canary.requests, 'requests the gateway made to a client-supplied URL').toEqual([]);
    // The recorder does record: a request to it is seen.
    await fetch(`${canary.url}/control`);
    expect(canary.requests).toEqual(['GET /control']);
  });
});
