import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONSENT_LIFETIME_MS } from '../../../src/modules/telematics/connect/connect.service.js';
import { parsePollInterval } from '../../../src/modules/telematics/connections/connections.service.js';
import { AppError } from '../../../src/platform/core/errors.js';
import type { ManualClock } from '../../../src/platform/core/clock.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { useInProcessCli } from '../../support/cli.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { credentialsFor, startTelematicsRig, type TelematicsRig } from './telematics-support.js';

/** The operator's `connections set`: poll interval, pause and resume, on the service (both dialects) and the CLI. */

interface Connection {
  id: string;
  provider: string;
  status: string;
  poll_interval_s: number;
  next_poll_at: string | null;
}


async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('parsePollInterval', () => {
  it.each([
    ['90s', 90],
    ['5m', 300],
    ['1h', 3600],
    ['300', 300],
    [' 2H ', 7200],
    ['24h', 86_400],
  ])('%j -> %i s', (text, seconds) => expect(parsePollInterval(text)).toBe(seconds));

  it.each(['', '5 minutes', '-5', '1.5m', '5d', 'm', '1h30m', '0x10'])('refuses %j with 400 naming the forms', (text) => {
    let err: unknown;
    try {
      parsePollInterval(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('invalid_input');
    expect((err as AppError).message).toMatch(/90s, 5m, 1h/);
  });
});

describe.each(dialects)('connections set, service (%s)', (dialect) => {
  let rig: TelematicsRig;
  let h: Harness;
  let sim: VendorSim;
  let key: string;
  let clock: ManualClock;
  let acme: { id: string };
  let other: { id: string };

  beforeAll(async () => {
    rig = await startTelematicsRig(dialect, { fleetSize: 3 });
    ({ h, sim, key, clock } = rig);
    acme = await h.org('acme');
    other = await h.org('other');
  });
  afterAll(() => rig.close());
  beforeEach(() => sim.setMode('*', { kind: 'up' }));

  const connections = () => h.gateway.services.connections;
  const connect = async (provider: string) => (await rig.connect(provider)).connection_id;
  const run = (id: string) => h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/run`, key });
  const read = async (id: string) => (await h.request({ method: 'GET', url: `/v1/telematics/connections/${id}`, key })).json<{ connection: Connection }>().connection;
  const inSeconds = (s: number) => new Date(clock.now().getTime() + s * 1000).toISOString();

  it('sets the interval within 60 s / the provider\'s minimum and 24h', async () => {
    const id = await connect('vendor3_himate');
    expect((await read(id)).poll_interval_s).toBe(600);
    const below = await rejection(connections().setPolling(id, { intervalSeconds: 300 }));
    expect(below.code).toBe('invalid_input');
    expect(below.message).toBe("interval 5m is below vendor3_himate's minimum of 10m (600 s)");
    const above = await rejection(connections().setPolling(id, { intervalSeconds: 86_401 }));
    expect(above.message).toMatch(/above the maximum of 24h/);
    expect((await connections().setPolling(id, { intervalSeconds: 86_400 })).poll_interval_s).toBe(86_400);
    expect((await connections().setPolling(id, { intervalSeconds: 900 })).poll_interval_s).toBe(900);

    const fast = await connect('vendor13');
    expect((await rejection(connections().setPolling(fast, { intervalSeconds: 59 }))).message).toBe('interval 59s is below the minimum of 1m (60 s)');
    expect((await connections().setPolling(fast, { intervalSeconds: 60 })).poll_interval_s).toBe(60);
    expect((await read(fast)).poll_interval_s).toBe(60);
  });

  it('a shorter interval brings the next poll forward; a longer one applies after the next poll', async () => {
    const id = await connect('vendor13');
    expect((await run(id)).statusCode).toBe(200);
    expect((await read(id)).next_poll_at).toBe(inSeconds(60));
    expect((await connections().setPolling(id, { intervalSeconds: 3600 })).next_poll_at).toBe(inSeconds(60));
    clock.advance(60_000);
    expect((await run(id)).statusCode).toBe(200);
    expect((await read(id)).next_poll_at).toBe(inSeconds(3600));
    expect((await connections().setPolling(id, { intervalSeconds: 120 })).next_poll_at).toBe(inSeconds(120));
    // Never polled: stays due at once.
    const fresh = await connect('vendor13');
    expect((await connections().setPolling(fresh, { intervalSeconds: 600 })).next_poll_at).toBeNull();
  });

  it('pause: paused, not pollable (409 saying so), listed as paused; resume: active and due at once', async () => {
    const id = await connect('vendor1_livelink');
    expect((await run(id)).statusCode).toBe(200);
    expect((await read(id)).next_poll_at).not.toBeNull();
    const paused = await connections().setPolling(id, { pause: true });
    expect(paused).toMatchObject({ id, status: 'paused' });
    const refused = await run(id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ error: string }>().error).toMatch(/paused/);
    const listed = await h.request({ method: 'GET', url: '/v1/telematics/connections?status=paused', key });
    expect(listed.json<{ connections: Connection[] }>().connections.map((c) => c.id)).toContain(id);

    const twice = await rejection(connections().setPolling(id, { pause: true }));
    expect(twice.code).toBe('connection_not_active');
    expect(twice.message).toBe(`connection ${id} is already paused`);

    const resumed = await connections().setPolling(id, { resume: true });
    expect(resumed).toMatchObject({ status: 'active', next_poll_at: null });
    expect((await run(id)).statusCode).toBe(200);
    const again = await rejection(connections().setPolling(id, { resume: true }));
    expect(again.code).toBe('connection_not_active');
    expect(again.message).toMatch(/is active, not paused: only a paused connection can be resumed/);
  });

  it('pause and resume combine with an interval; pause with resume is refused', async () => {
    const id = await connect('vendor1_livelink');
    expect(await connections().setPolling(id, { pause: true, intervalSeconds: 1800 })).toMatchObject({ status: 'paused', poll_interval_s: 1800 });
    expect(await connections().setPolling(id, { resume: true, intervalSeconds: 600 })).toMatchObject({ status: 'active', poll_interval_s: 600, next_poll_at: null });
    expect((await rejection(connections().setPolling(id, { pause: true, resume: true }))).message).toMatch(/cannot be combined/);
    expect((await rejection(connections().setPolling(id, {}))).message).toMatch(/nothing to change/);
  });

  it('only an active connection can be paused: reauth_required, pending_consent, consent_expired are refused, and the interval with them', async () => {
    const refused = await connect('vendor1_livelink');
    sim.setMode('vendor1_livelink', { kind: 'reject' });
    expect((await run(refused)).statusCode).toBe(409);
    const reauth = await rejection(connections().setPolling(refused, { pause: true, intervalSeconds: 3600 }));
    expect(reauth.code).toBe('connection_not_active');
    expect(reauth.message).toBe(`connection ${refused} is reauth_required: only an active connection can be paused`);
    expect((await read(refused)).poll_interval_s).toBe(300);
    // The interval alone can be set whatever the status.
    expect(await connections().setPolling(refused, { intervalSeconds: 3600 })).toMatchObject({ status: 'reauth_required', poll_interval_s: 3600 });

    const pending = await connect('vendor11_operations_center');
    expect((await rejection(connections().setPolling(pending, { pause: true }))).message).toMatch(/is pending_consent: only an active/);
    clock.advance(CONSENT_LIFETIME_MS + 1000);
    expect((await rejection(connections().setPolling(pending, { pause: true }))).message).toMatch(/is consent_expired: only an active/);
    expect((await rejection(connections().setPolling(pending, { resume: true }))).message).toMatch(/is consent_expired, not paused/);
  });

  it('finds the connection by id alone, or only in the org given; unknown -> 404', async () => {
    const id = await connect('vendor13');
    expect((await connections().setPolling(id, { intervalSeconds: 120 }, acme.id)).poll_interval_s).toBe(120);
    const elsewhere = await rejection(connections().setPolling(id, { intervalSeconds: 180 }, other.id));
    expect(elsewhere.code).toBe('not_found');
    expect((await read(id)).poll_interval_s).toBe(120);
    expect((await rejection(connections().setPolling('con_nope', { pause: true }))).message).toBe('connection con_nope not found');
  });
});

describe('connections set, CLI', () => {
  const cli = useInProcessCli('connections-set');
  let h: Harness;
  let sim: VendorSim;
  let vendor1 = '';
  let vendor11 = '';
  const saved = { GATEWAY_SECRET: process.env.GATEWAY_SECRET };

  beforeAll(async () => {
    sim = await startVendorSim({ fleetSize: 2 });
    h = await startHarness('sqlite', { env: { VENDOR_SIM_URL: sim.url } });
    await h.org('acme');
    await h.org('other');
    for (const provider of ['vendor1_livelink', 'vendor11_operations_center']) {
      const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
      const r = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider, ...(credentialsFor(provider) ? { credentials: credentialsFor(provider) } : {}) } });
      expect(r.statusCode, r.body).toBe(200);
      if (provider === 'vendor1_livelink') vendor1 = r.json<{ connection_id: string }>().connection_id;
      else vendor11 = r.json<{ connection_id: string }>().connection_id;
    }
    // The CLI runs on the harness's database (useInProcessCli's own file is set before this and restored after).
    process.env.DATABASE_URL = h.databaseUrl;
    process.env.GATEWAY_SECRET = h.config.GATEWAY_SECRET;
  });
  afterAll(async () => {
    if (saved.GATEWAY_SECRET === undefined) Reflect.deleteProperty(process.env, 'GATEWAY_SECRET');
    else process.env.GATEWAY_SECRET = saved.GATEWAY_SECRET;
    await h?.close();
    await sim?.close();
  });

  const oneErrorLine = (res: { code: number; stderr: string; stdout: string }, message: RegExp | string) => {
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    if (typeof message === 'string') expect(lines[0]).toBe(message);
    else expect(lines[0]).toMatch(message);
  };

  it('--interval takes 90s / 5m / 1h / seconds and prints the connection (text and --json)', async () => {
    const text = await cli('connections', 'set', vendor1, '--interval', '10m');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^id\s+provider\s+status\s+poll_interval_s\s+next_poll_at\s+label/);
    expect(text.stdout).toContain(vendor1);
    expect(text.stdout).toMatch(/vendor1_livelink\s+active\s+600\s/);
    for (const [arg, seconds] of [['1h', 3600], ['300', 300], ['900s', 900]] as const) {
      const json = await cli('connections', 'set', vendor1, '--interval', arg, '--json');
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ id: vendor1, provider: 'vendor1_livelink', status: 'active', poll_interval_s: seconds });
    }
  });

  it('an interval out of bounds or not a duration: one clear line, exit 1', async () => {
    oneErrorLine(await cli('connections', 'set', vendor1, '--interval', '90s'), "error: interval 90s is below vendor1_livelink's minimum of 5m (300 s)");
    oneErrorLine(await cli('connections', 'set', vendor1, '--interval', '25h'), 'error: interval 25h is above the maximum of 24h (86400 s)');
    oneErrorLine(await cli('connections', 'set', vendor1, '--interval', 'soon'), /^error: interval 'soon' is not a duration/);
    const json = JSON.parse((await cli('connections', 'set', vendor1, '--interval', '5m', '--json')).stdout) as Connection;
    expect(json.poll_interval_s).toBe(300);
  });

  it('--pause, then --resume (due at once); each refused where it does not apply', async () => {
    const paused = await cli('connections', 'set', vendor1, '--pause', '--json');
    expect(paused.code, paused.stderr).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject({ id: vendor1, status: 'paused' });
    oneErrorLine(await cli('connections', 'set', vendor1, '--pause'), `error: connection ${vendor1} is already paused`);
    const resumed = await cli('connections', 'set', vendor1, '--resume', '--interval', '1h', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'active', poll_interval_s: 3600, next_poll_at: null });
    oneErrorLine(await cli('connections', 'set', vendor1, '--resume'), /^error: connection con_\w+ is active, not paused: only a paused connection can be resumed$/);
    // The CLI runs on the real clock, the harness on a manual one: the consent may read as expired already.
    oneErrorLine(await cli('connections', 'set', vendor11, '--pause'), /^error: connection con_\w+ is (pending_consent|consent_expired): only an active connection can be paused$/);
  });

  it('--pause with --resume, or nothing to change: one line, exit 1, nothing changed', async () => {
    oneErrorLine(await cli('connections', 'set', vendor1, '--pause', '--resume'), 'error: --pause and --resume cannot be used together');
    oneErrorLine(await cli('connections', 'set', vendor1), 'error: nothing to change: give --interval, --pause or --resume');
    expect((await h.gateway.services.connections.getForOperator(vendor1)).status).toBe('active');
  });

  it('--org narrows: another org\'s or an unknown connection -> not found', async () => {
    expect((await cli('connections', 'set', vendor1, '--org', 'acme', '--interval', '5m')).code).toBe(0);
    oneErrorLine(await cli('connections', 'set', vendor1, '--org', 'other', '--pause'), `error: connection ${vendor1} not found`);
    oneErrorLine(await cli('connections', 'set', vendor1, '--org', 'nope', '--pause'), 'error: org nope not found');
    oneErrorLine(await cli('connections', 'set', 'con_nope', '--pause'), 'error: connection con_nope not found');
    expect((await h.gateway.services.connections.getForOperator(vendor1)).status).toBe('active');
  });

  it('connect-tokens create --connection issues a reconnect token fixed to its provider', async () => {
    const text = await cli('connect-tokens', 'create', '--org', 'acme', '--connection', vendor1);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`reconnects ${vendor1} (vendor1_livelink)`);
    const json = await cli('connect-tokens', 'create', '--org', 'acme', '--connection', vendor1, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ org: 'acme', provider: 'vendor1_livelink', connection: vendor1 });
    oneErrorLine(await cli('connect-tokens', 'create', '--org', 'other', '--connection', vendor1), `error: connection ${vendor1} not found`);
    oneErrorLine(await cli('connect-tokens', 'create', '--org', 'acme', '--connection', vendor1, '--provider', 'vendor13'), /^error: connection con_\w+ is a vendor1_livelink connection/);
  });
});
