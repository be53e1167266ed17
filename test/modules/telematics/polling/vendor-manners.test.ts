import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../../../src/gateway.js';
import { findProvider, type Provider } from '../../../../src/modules/telematics/providers/catalog.js';
import { iso15143Reader } from '../../../../src/modules/telematics/providers/iso15143/reader.js';
import type { NormalizedEvent } from '../../../../src/modules/telematics/providers/event.js';
import type { VendorSim } from '../../../../src/sim/vendor-sim.js';
import { dialects, type Harness } from '../../../support/harness.js';
import { startTelematicsRig, type TelematicsRig } from '../telematics-support.js';

interface Connection {
  status: string;
  breaker: { state: string; consecutive_failures: number; open_until: string | null };
  last_error: { message: string } | null;
  next_poll_at: string | null;
}

const USER = 'fleet@acme.example';
const dir = mkdtempSync(join(tmpdir(), 'gw-manners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(dialects)('vendor manners (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;
  let sim: VendorSim;
  let key: string;

  beforeAll(async () => {
    const providers = join(dir, `providers-${dialect}.json`);
    // vendor7_consite allows one call per URL per 15 minutes, as one real feed host does.
    writeFileSync(providers, JSON.stringify({ providers: { vendor7_consite: { url_interval_s: 900 } } }));
    rig = await startTelematicsRig(dialect, { fleetSize: 7, pageSize: 3, env: { PROVIDERS_CONFIG: providers } });
    ({ h, sim, key } = rig);
  });
  afterAll(() => rig.close());
  beforeEach(() => sim.reset());

  const run = (id: string) => h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key });
  const read = async (id: string) => (await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key })).json<{ connection: Connection }>().connection;
  const stored = (id: string) => h.gateway.database.db.selectFrom('telematics_connections').select(['vendor_token_ciphertext']).where('id', '=', id).executeTakeFirstOrThrow();

  it.each(['vendor2_machineiq', 'vendor4_caretrack'])('%s: the grant token is cached (encrypted) across polls and fetched anew shortly before it expires', async (provider) => {
    const { connection_id } = await rig.connect(provider);
    const afterConnect = sim.tokensIssued(provider);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect(sim.tokensIssued(provider), 'the first poll fetches one').toBe(afterConnect + 1);
    const cached = (await stored(connection_id)).vendor_token_ciphertext;
    expect(cached).toMatch(/^v1:/);
    expect(cached).not.toContain('at_');

    h.clock.advance(600_000);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect(sim.tokensIssued(provider), 'later polls reuse it').toBe(afterConnect + 1);

    // The simulator's tokens live an hour: with under five minutes left the next poll fetches a new one.
    h.clock.advance(46 * 60_000);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect(sim.tokensIssued(provider)).toBe(afterConnect + 2);
    expect((await stored(connection_id)).vendor_token_ciphertext).not.toBe(cached);
  });

  it('`secrets rotate` re-encrypts the cached token, which keeps working', async () => {
    const { connection_id } = await rig.connect('vendor8_connect');
    expect((await run(connection_id)).statusCode).toBe(200);
    const issued = sim.tokensIssued('vendor8_connect');
    const { keyId } = await h.gateway.vault.rotate(h.gateway.encryptedColumns);
    expect((await stored(connection_id)).vendor_token_ciphertext?.startsWith(`v1:${keyId}:`)).toBe(true);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect(sim.tokensIssued('vendor8_connect')).toBe(issued);
  });

  it('a cached token the vendor refuses (401) is dropped and fetched once anew; the poll succeeds', async () => {
    const { connection_id } = await rig.connect('vendor10_fleetforce');
    expect((await run(connection_id)).statusCode).toBe(200);
    // The vendor forgets every token it issued (a restart, a revocation): the cached one is now refused.
    sim.reset();
    h.clock.advance(300_000);
    const r = await run(connection_id);
    expect(r.statusCode, r.body).toBe(200);
    expect(sim.tokensIssued('vendor10_fleetforce')).toBe(1);
    const calls = sim.requests('vendor10_fleetforce').map((q) => `${q.path} ${q.status}`);
    expect(calls.slice(0, 3)).toEqual(['/vendor10_fleetforce/Fleet/1 401', '/vendor10_fleetforce/oauth/token 200', '/vendor10_fleetforce/Fleet/1 200']);
    expect((await read(connection_id)).status).toBe('active');

    // Refused again with the new token: that is the credentials, and the connection needs reconnecting.
    sim.setMode('vendor10_fleetforce', { kind: 'reject' });
    h.clock.advance(300_000);
    expect((await run(connection_id)).statusCode).toBe(409);
    expect((await read(connection_id)).status).toBe('reauth_required');
  });

  it('a 404 on page 2 fails the poll naming status and path, and opens the breaker at once rather than retrying blindly', async () => {
    const { connection_id } = await rig.connect('vendor1_livelink');
    sim.setFleet('vendor1_livelink', USER, { endpoints: { missingPages: [2] } });
    const r = await run(connection_id);
    expect(r.statusCode).toBe(502);
    const c = await read(connection_id);
    expect(c.last_error?.message).toMatch(/HTTP 404 at \/vendor1_livelink\/Fleet\/2/);
    expect(c.breaker.state).toBe('open');
    expect(Date.parse(c.next_poll_at ?? '') - h.clock.now().getTime()).toBeGreaterThanOrEqual(300_000);
    const cursors = (await h.gateway.database.db.selectFrom('telematics_connections').select('cursors').where('id', '=', connection_id).executeTakeFirstOrThrow()).cursors;
    expect(cursors, 'nothing moved').toBeNull();
    // The page is back: the trial after the cooldown closes the breaker.
    sim.setFleet('vendor1_livelink', USER, {});
    h.clock.advance(61_000);
    expect((await run(connection_id)).statusCode).toBe(200);
    expect((await read(connection_id)).breaker.state).toBe('closed');
  });

  it("keeps to a vendor's per-URL budget: the first poll is scheduled after the connect check's window, a poll inside it is put off without a call", async () => {
    sim.setFleet('vendor7_consite', USER, { endpoints: { urlIntervalSeconds: 900 } });
    const connectedAt = h.clock.now().getTime();
    const { connection_id } = await rig.connect('vendor7_consite');
    const first = await read(connection_id);
    expect(Date.parse(first.next_poll_at ?? '') - connectedAt).toBeGreaterThanOrEqual(900_000);

    // Asked to poll now: refused saying when, with no call to the vendor and nothing counted against the breaker.
    const calls = sim.requests('vendor7_consite').length;
    const early = await run(connection_id);
    expect(early.statusCode).toBe(409);
    expect(early.json<{ error: string }>().error).toMatch(/one call to \/vendor7_consite\/Fleet\/1 per 900 s/);
    expect(Number(early.headers['retry-after'])).toBeGreaterThan(0);
    expect(sim.requests('vendor7_consite').length).toBe(calls);
    expect((await read(connection_id)).breaker.consecutive_failures).toBe(0);

    // At the scheduled time the poll goes through, and the vendor never answered 429.
    h.clock.set(new Date(Date.parse(first.next_poll_at ?? '')));
    const r = await run(connection_id);
    expect(r.statusCode, r.body).toBe(200);
    expect(sim.requests('vendor7_consite').filter((q) => q.status === 429)).toEqual([]);
    // Each page's URL is its own: page 2 and 3 were fetched once each.
    expect(sim.requests('vendor7_consite').filter((q) => q.status === 200).map((q) => q.path)).toEqual(['/vendor7_consite/Fleet/1', '/vendor7_consite/Fleet/1', '/vendor7_consite/Fleet/2', '/vendor7_consite/Fleet/3']);
    const next = await read(connection_id);
    expect(Date.parse(next.next_poll_at ?? '') - h.clock.now().getTime()).toBeGreaterThanOrEqual(900_000);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('processes sharing Redis share the per-URL budget: another process may not poll inside the window either', async () => {
    sim.setFleet('vendor7_consite', USER, { endpoints: { urlIntervalSeconds: 900 } });
    const { connection_id } = await rig.connect('vendor7_consite');
    const row = await h.gateway.database.db.selectFrom('telematics_connections').select('org_id').where('id', '=', connection_id).executeTakeFirstOrThrow();
    const second = await createGateway(h.config, { clock: h.clock, ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}), redisKeyPrefix: h.redisKeyPrefix, migrate: false });
    try {
      await expect(second.services.polling.run(row.org_id, connection_id, async () => {})).rejects.toMatchObject({ code: 'poll_budget_exhausted', message: expect.stringMatching(/per 900 s/) as unknown });
      expect(sim.requests('vendor7_consite').filter((q) => q.path.endsWith('/Fleet/1'))).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('series URLs carry times as YYYY-MM-DDThh:mm:ssZ, never fractions', async () => {
    const provider = findProvider('vendor1_livelink') as Provider;
    const endpoint = { baseUrl: `${sim.url}/vendor1_livelink`, timeoutMs: 2000 };
    const now = h.clock.now().getTime();
    // Both ends with milliseconds, as a clock gives them.
    const range = { start: new Date(now - 5 * 3_600_000 - 123), end: new Date(now - 456), elements: ['CumulativeOperatingHours'] };
    const events: NormalizedEvent[] = [];
    for await (const batch of iso15143Reader.series?.({ provider, endpoint, auth: { credentials: { username: USER, password: 'pw' } }, connectionId: 'con_series' }, range) ?? []) events.push(...batch);
    expect(events.length).toBeGreaterThanOrEqual(7 * 5);
    const series = sim.requests('vendor1_livelink').filter((q) => q.path.includes('/Fleet/Equipment/'));
    expect(series.length).toBeGreaterThan(0);
    for (const q of series) {
      expect(q.status).toBe(200);
      const [start, end] = q.path.split('/').slice(-3, -1).map(decodeURIComponent);
      expect(start).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(end).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
  });
});
