import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, type Gateway } from '../../../../src/gateway.js';
import type { ManualClock } from '../../../../src/platform/core/clock.js';
import { startVendorSim, type VendorSim } from '../../../../src/sim/vendor-sim.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { waitFor } from '../../../support/wait-for.js';
import { credentialsFor } from '../telematics-support.js';

const BUDGET = 1;

interface WatchedPoll {
  /** The clock time of the gate's refusals since the poll's last pass, and how many it asked at that time. */
  refusedAt?: number;
  refusals: number;
}

/**
 * The polls in flight in these gateways and how their vendor's rate gate answers them. A poll is held when the gate
 * refused it at the present clock time, napped, asked again and was refused again: the budget runs on the injected
 * clock, which only the test moves, so proving "no call until the clock moves" needs no real-time sleep of the test's.
 */
function watchPolls(clock: ManualClock, gateways: Gateway[]): { inFlight: () => number; held: () => number; restore: () => void } {
  const current = new AsyncLocalStorage<WatchedPoll>();
  const polls = new Set<WatchedPoll>();
  const spies = gateways.flatMap(({ services: { polling }, limiter }) => {
    const pollClaimed = polling.pollClaimed.bind(polling);
    const check = limiter.check.bind(limiter);
    return [
      vi.spyOn(polling, 'pollClaimed').mockImplementation((row, settle) => {
        const poll: WatchedPoll = { refusals: 0 };
        polls.add(poll);
        return current.run(poll, () => pollClaimed(row, settle)).finally(() => polls.delete(poll));
      }),
      vi.spyOn(limiter, 'check').mockImplementation(async (key, limit) => {
        const decision = await check(key, limit);
        const poll = current.getStore();
        if (poll === undefined || !key.startsWith('vendor:')) return decision;
        const now = clock.now().getTime();
        poll.refusals = decision.allowed ? 0 : poll.refusedAt === now ? poll.refusals + 1 : 1;
        poll.refusedAt = decision.allowed ? undefined : now;
        return decision;
      }),
    ];
  });
  return {
    inFlight: () => polls.size,
    held: () => [...polls].filter((p) => p.refusedAt === clock.now().getTime() && p.refusals >= 2).length,
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}

describe.each(dialects)('the telematics poller (%s)', (dialect) => {
  let h: Harness;
  let sim: VendorSim;
  let ip = 0;

  beforeAll(async () => {
    const first = await startHarness(dialect);
    sim = await startVendorSim({ fleetSize: 3, pageSize: 3, now: () => first.clock.now() });
    await first.close();
    // vendor15 gets a tight request budget, for the test of the shared rate gate.
    const providers = join(mkdtempSync(join(tmpdir(), 'gw-poller-')), 'providers.json');
    writeFileSync(providers, JSON.stringify({ providers: { vendor15: { rate_limit_per_minute: BUDGET } } }));
    h = await startHarness(dialect, {
      env: { VENDOR_SIM_URL: sim.url, POLLER_CONCURRENCY: '8', POLLER_PER_PROVIDER: '2', PROVIDERS_CONFIG: providers },
      clock: first.clock,
    });
    await h.org('acme');
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });
  beforeEach(async () => {
    sim.setMode('*', { kind: 'up' });
    // Each test starts with no due connection: the earlier ones' are paused out of the way.
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'paused' }).execute();
  });

  const connect = async (provider = 'vendor13') => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const credentials = credentialsFor(provider);
    const r = await h.request({ method: 'POST', url: '/connect', remoteAddress: `10.6.0.${++ip}`, payload: { connect_token, provider, credentials } });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<{ connection_id: string }>().connection_id;
  };
  const row = (id: string) => h.gateway.database.db.selectFrom('telematics_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const poller = () => h.gateway.services.poller;
  const dataCalls = (provider: string) => sim.requests(provider).filter((r) => !r.path.includes('/auth/') && !r.path.includes('/oauth/')).length;

  it('polls what is due, then waits out each connection\'s interval', async () => {
    const ids = [await connect(), await connect('vendor6_lida')];
    expect(await poller().tick()).toBe(2);
    await poller().idle();
    for (const id of ids) {
      const r = await row(id);
      expect(r.last_run).toContain('"outcome":"ok"');
      expect(r.lease_owner).toBeNull();
      expect(Date.parse(r.next_poll_at ?? '')).toBe(h.clock.now().getTime() + r.poll_interval_s * 1000);
    }
    expect(await poller().tick(), 'nothing due yet').toBe(0);
    h.clock.advance(300_000);
    expect(await poller().tick()).toBe(2);
    await poller().idle();
  });

  it('skips paused, pending and reauth_required connections, and an open breaker until its cooldown is over', async () => {
    const paused = await connect();
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'paused' }).where('id', '=', paused).execute();
    const broken = await connect();
    await h.gateway.database.db
      .updateTable('telematics_connections')
      .set({ breaker_state: 'open', consecutive_failures: 5, cooldown_s: 60, open_until: new Date(h.clock.now().getTime() + 60_000).toISOString() })
      .where('id', '=', broken)
      .execute();
    expect(await poller().tick()).toBe(0);
    h.clock.advance(60_000);
    expect(await poller().tick(), 'the half-open trial').toBe(1);
    await poller().idle();
    expect((await row(broken)).breaker_state).toBe('closed');
  });

  it('keeps to the per-provider limit and takes the rest next round', async () => {
    sim.setMode('vendor13', { kind: 'slow', delayMs: 200 });
    const ids = await Promise.all(Array.from({ length: 5 }, () => connect()));
    expect(await poller().tick()).toBe(2);
    const claimed = await h.gateway.database.db.selectFrom('telematics_connections').select('id').where('lease_owner', 'is not', null).execute();
    expect(claimed).toHaveLength(2);
    await poller().idle();
    expect(await poller().tick()).toBe(2);
    await poller().idle();
    expect(await poller().tick()).toBe(1);
    await poller().idle();
    for (const id of ids) expect((await row(id)).last_run).toContain('"outcome":"ok"');
  });

  it('takes over a connection whose claim ran out (its process died)', async () => {
    const id = await connect();
    await h.gateway.database.db
      .updateTable('telematics_connections')
      .set({ lease_owner: 'poll:dead', lease_until: new Date(h.clock.now().getTime() + 60_000).toISOString() })
      .where('id', '=', id)
      .execute();
    expect(await poller().tick()).toBe(0);
    h.clock.advance(61_000);
    expect(await poller().tick()).toBe(1);
    await poller().idle();
    expect((await row(id)).last_run).toContain('"outcome":"ok"');
  });

  it("a vendor's Retry-After holds back that provider's other polls in this process", async () => {
    await connect();
    const held = await connect();
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'paused' }).where('id', '=', held).execute();
    sim.setMode('vendor13', { kind: 'rate_limited', retryAfterSeconds: 120 });
    expect(await poller().tick()).toBe(1);
    await poller().idle();
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'active' }).where('id', '=', held).execute();
    expect(await poller().tick(), 'vendor13 waits').toBe(0);
    const other = await connect('vendor6_lida');
    expect(await poller().tick()).toBe(1);
    await poller().idle();
    expect((await row(other)).last_run).toContain('"outcome":"ok"');
    sim.setMode('vendor13', { kind: 'up' });
    h.clock.advance(121_000);
    expect(await poller().tick()).toBeGreaterThanOrEqual(1);
    await poller().idle();
  });

  it('two processes on one database never poll the same connection at once', async () => {
    sim.setMode('*', { kind: 'slow', delayMs: 100 });
    const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => connect(i % 2 === 0 ? 'vendor13' : 'vendor6_lida')));
    const second: Gateway = await createGateway(h.config, { clock: h.clock, ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}), migrate: false });
    try {
      const before13 = dataCalls('vendor13');
      const before6 = dataCalls('vendor6_lida');
      const [a, b] = await Promise.all([poller().tick(), second.services.poller.tick()]);
      // Each process takes at most 2 per provider; together they take what the other left, never the same one.
      expect(a + b).toBeGreaterThanOrEqual(4);
      await Promise.all([poller().idle(), second.services.poller.idle()]);
      const [c, d] = await Promise.all([poller().tick(), second.services.poller.tick()]);
      await Promise.all([poller().idle(), second.services.poller.idle()]);
      expect(a + b + c + d).toBe(ids.length);
      for (const id of ids) expect((await row(id)).last_run).toContain('"outcome":"ok"');
      // One fleet read per connection: nobody polled one twice.
      expect(dataCalls('vendor13') - before13 + dataCalls('vendor6_lida') - before6).toBe(ids.length);
    } finally {
      await second.close();
    }
  });

  it("keeps to a provider's request budget by waiting, not failing; processes sharing Redis share it", async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, () => connect('vendor15')));
    const shared = Boolean(process.env.TEST_REDIS_URL);
    const second: Gateway = await createGateway(h.config, {
      clock: h.clock,
      ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}),
      redisKeyPrefix: h.redisKeyPrefix,
      migrate: false,
    });
    const calls = () => sim.requests('vendor15').length;
    const before = calls();
    const polls = watchPolls(h.clock, [h.gateway, second]);
    // Settled: every poll still in flight is held at the gate, so the calls counted then are all this clock time allows.
    const settled = () => polls.held() === polls.inFlight();
    try {
      // Two polls per process: four polls, each needing at least one call, against a budget of one a minute.
      const started = (await poller().tick()) + (await second.services.poller.tick());
      expect(started).toBe(4);
      const processes = shared ? 1 : 2;
      await waitFor(settled, { what: 'every poll done or held at the gate' });
      expect(calls() - before, 'the first minute: the budget, then the gate holds').toBe(BUDGET * processes);
      let minutes = 1;
      while (polls.inFlight() > 0 && minutes < 20) {
        h.clock.advance(120_000);
        minutes += 2;
        await waitFor(settled, { what: `every poll done or held again after ${minutes} minutes` });
        expect(calls() - before, `after ${minutes} minutes`).toBeLessThanOrEqual(BUDGET * processes * minutes);
      }
      await Promise.all([poller().idle(), second.services.poller.idle()]);
      for (const id of ids) {
        const r = await row(id);
        expect(r.last_run, 'waiting is not a failure').toContain('"outcome":"ok"');
        expect(r.consecutive_failures).toBe(0);
      }
      // The polls held at the gate say so in their connection's issues.
      const waits = await Promise.all(ids.map(async (id) => ((JSON.parse((await row(id)).issues ?? '[]') as { kind: string }[]).some((i) => i.kind === 'budget_wait'))));
      expect(waits.filter(Boolean).length).toBeGreaterThan(0);
    } finally {
      polls.restore();
      await second.close();
    }
  });

  it('starts with serve-like start() and stops cleanly, releasing nothing half-done', async () => {
    const id = await connect('vendor6_lida');
    poller().start();
    await waitFor(async () => (await row(id)).last_run !== null, { what: 'the poll started by start()' });
    await poller().stop();
    expect((await row(id)).last_run).toContain('"outcome":"ok"');
    expect((await row(id)).lease_owner).toBeNull();
  });
});
