import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/core/clock.js';
import { startVendorSim, type VendorSim } from '../../src/sim/vendor-sim.js';
import { credentialsFor } from '../modules/telematics/telematics-support.js';
import { childEnv } from '../platform/outbox/process-support.js';
import { type CliResult, useInProcessCli } from '../support/cli.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';

/** `gateway connections replay|syncs`: a replay sync started, followed with a progress line, stopped and resumed. */

interface Sync {
  id: string;
  connection_id: string;
  status: string;
  progress: { machines_done: number; machines_total: number; events_enqueued: number };
  failure_reason: string | null;
}

const FLEET = 3;
const DAY_MS = 86_400_000;

describe.each(dialects)('connections replay and syncs, CLI (%s)', (dialect) => {
  const watch: { stderr?: (chunk: string) => void } = {};
  const cli = useInProcessCli(`replay-${dialect}`, watch);
  let h: Harness;
  let sim: VendorSim;
  let livelink = '';
  let saved: Record<string, string | undefined> = {};
  const stderrTty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');

  beforeAll(async () => {
    sim = await startVendorSim({ fleetSize: FLEET, pageSize: 10 });
    // Real time: the CLI runs on the system clock, and its window must not be in the future of it.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()), env: { VENDOR_SIM_URL: sim.url } });
    await h.org('acme');
    await h.org('other');
    livelink = await connect('vendor1_livelink');
    // The CLI runs on the harness's database (useInProcessCli's own file is set before this and restored after).
    const env = { DATABASE_URL: childEnv(h).DATABASE_URL, GATEWAY_SECRET: h.config.GATEWAY_SECRET, VENDOR_SIM_URL: sim.url, VENDOR_RATE_LIMIT_PER_MINUTE: '100000' };
    saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
    Object.assign(process.env, env);
  });
  afterEach(async () => {
    watch.stderr = undefined;
    if (stderrTty) Object.defineProperty(process.stderr, 'isTTY', stderrTty);
    else Reflect.deleteProperty(process.stderr, 'isTTY');
    sim.setMode('*', { kind: 'up' });
    await h.gateway.instances.stop();
  });
  afterAll(async () => {
    for (const [key, value] of Object.entries(saved)) {
      if (key === 'DATABASE_URL') continue; // useInProcessCli restores its own
      if (value === undefined) Reflect.deleteProperty(process.env, key);
      else process.env[key] = value;
    }
    await h?.close();
    await sim?.close();
  });

  async function connect(provider: string): Promise<string> {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const credentials = credentialsFor(provider);
    const r = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider, ...(credentials ? { credentials } : {}) } });
    expect(r.statusCode, r.body).toBe(200);
    return r.json<{ connection_id: string }>().connection_id;
  }
  const window = () => {
    const to = new Date(Date.now() - 60_000);
    return ['--from', new Date(to.getTime() - DAY_MS).toISOString(), '--to', to.toISOString()];
  };
  const stored = (id: string) => h.gateway.database.db.selectFrom('telematics_syncs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const eventsOf = async (connectionId: string) =>
    (await h.gateway.database.db.selectFrom('outbox').select('payload').where('type', '=', 'telematics.event').execute()).filter(
      (r) => (JSON.parse(r.payload) as { data: { connection_id: string } }).data.connection_id === connectionId,
    ).length;
  const asTerminal = () => Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true, writable: true });
  /** Ctrl-C once the first progress line is drawn: the job stops at its next step. */
  const ctrlCAtFirstLine = () => {
    watch.stderr = (chunk) => {
      if (!chunk.includes('machines replayed')) return;
      watch.stderr = undefined;
      process.emit('SIGINT', 'SIGINT');
    };
  };
  const oneErrorLine = (res: CliResult, message: RegExp | string) => {
    expect(res.code, res.stdout).toBe(1);
    expect(res.stdout).toBe('');
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    if (typeof message === 'string') expect(lines[0]).toBe(message);
    else expect(lines[0]).toMatch(message);
  };

  it('with no serve running, runs the sync here to its end: --json prints the completed sync and only it', async () => {
    const before = await eventsOf(livelink);
    const res = await cli('connections', 'replay', livelink, '--org', 'acme', ...window(), '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    const sync = JSON.parse(res.stdout) as Sync;
    expect(sync).toMatchObject({ connection_id: livelink, status: 'completed', progress: { machines_done: FLEET, machines_total: FLEET }, failure_reason: null });
    expect(sync.progress.events_enqueued).toBeGreaterThan(0);
    expect(await eventsOf(livelink), 'the readings are queued for the hub').toBe(before + sync.progress.events_enqueued);
    const api = await h.request({ method: 'GET', url: `/v1/telematics/connections/${livelink}/syncs/${sync.id}`, key: (await h.key('acme', 'telematics:read')).key });
    expect(api.json<{ sync: Sync }>().sync).toMatchObject({ id: sync.id, status: 'completed' });
  });

  it('on a terminal, draws machines done/total on stderr and ends with one line on stdout; not a terminal: nothing on stderr', async () => {
    asTerminal();
    const tty = await cli('connections', 'replay', livelink, '--org', 'acme', ...window());
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).toContain(`\rmachines replayed: ${FLEET}/${FLEET} (100 %)`);
    expect(tty.stderr.endsWith('\r\u001b[K'), 'the line is cleared at the end').toBe(true);
    expect(tty.stdout).toMatch(new RegExp(`^sync syn_\\w+ completed: ${FLEET}/${FLEET} machines, \\d+ events queued for the hub \\(.+ to .+\\)\\n$`));
    Reflect.deleteProperty(process.stderr, 'isTTY');
    const piped = await cli('connections', 'replay', livelink, '--org', 'acme', ...window());
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toBe('');
    asTerminal();
    const json = await cli('connections', 'replay', livelink, '--org', 'acme', ...window(), '--json');
    expect(json.stderr, '--json: nothing but the result').toBe('');
  });

  it('Ctrl-C stops it at the next step, gives the sync back and says how to resume, see and cancel it; --resume finishes it', async () => {
    asTerminal();
    ctrlCAtFirstLine();
    const stopped = await cli('connections', 'replay', livelink, '--org', 'acme', ...window());
    expect(stopped.code).toBe(130);
    expect(stopped.stdout).toBe('');
    // After the progress line, cleared: the one line that says what now.
    expect(stopped.stderr.endsWith('\r\u001b[K' + (/interrupted: .*\n$/.exec(stopped.stderr)?.[0] ?? ''))).toBe(true);
    const said = /interrupted: .*/.exec(stopped.stderr)?.[0] ?? '';
    const id = /stopped following sync (syn_\w+)/.exec(said)?.[1] ?? '';
    expect(said).toBe(
      `interrupted: stopped following sync ${id}; it goes on in a running serve, or here again with gateway connections replay ${livelink} --org acme --resume ${id}; ` +
        `see it with gateway connections syncs ${livelink} --org acme (GET /v1/telematics/connections/${livelink}/syncs/${id}), ` +
        `cancel it with gateway connections cancel-sync ${livelink} ${id} --org acme (POST /v1/telematics/connections/${livelink}/syncs/${id}/cancel)`,
    );
    // The first step (listing the machines) ran; the claim was given back, so any process takes it at once.
    expect(await stored(id)).toMatchObject({ status: 'running', machines_total: FLEET, slices_done: 0, lease_owner: null });

    const listed = await cli('connections', 'syncs', livelink, '--org', 'acme');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^id\s+status\s+from\s+to\s+machines\s+events\s+created_at\n/);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+running\\s+\\S+\\s+\\S+\\s+0/${FLEET}\\s+0\\s`));

    const resumed = await cli('connections', 'replay', livelink, '--org', 'acme', '--resume', id, '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id, status: 'completed', progress: { machines_done: FLEET, machines_total: FLEET } });
  });

  it('with a serve running, leaves the sync to it and watches; Ctrl-C leaves it queued for that serve', async () => {
    // The harness's gateway stands for a serve process: it beats in gateway_instances.
    await h.gateway.instances.start();
    asTerminal();
    ctrlCAtFirstLine();
    const stopped = await cli('connections', 'replay', livelink, '--org', 'acme', ...window());
    expect(stopped.code).toBe(130);
    const id = /stopped following sync (syn_\w+)/.exec(stopped.stderr)?.[1] ?? '';
    expect(await stored(id), 'this command did not run it').toMatchObject({ status: 'queued', started_at: null, lease_owner: null });
    // The "serve" runs it; following it again finds it completed.
    const worker = h.gateway.services.syncWorker;
    while ((await worker.tick()) > 0) await worker.idle();
    const followed = await cli('connections', 'syncs', livelink, '--org', 'acme', '--status', 'completed', '--json');
    expect((JSON.parse(followed.stdout) as { syncs: Sync[] }).syncs.map((s) => s.id)).toContain(id);
    const resumed = await cli('connections', 'replay', livelink, '--org', 'acme', '--resume', id);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^sync ${id} completed: ${FLEET}/${FLEET} machines`));
  });

  it('cancel-sync ends a sync left by Ctrl-C as cancelled, as REST does; a second cancel and bad input are one error line', async () => {
    asTerminal();
    ctrlCAtFirstLine();
    const stopped = await cli('connections', 'replay', livelink, '--org', 'acme', ...window());
    expect(stopped.code).toBe(130);
    const id = /stopped following sync (syn_\w+)/.exec(stopped.stderr)?.[1] ?? '';
    Reflect.deleteProperty(process.stderr, 'isTTY');
    const before = await eventsOf(livelink);
    oneErrorLine(await cli('connections', 'cancel-sync', livelink, id, '--org', 'other'), `error: sync ${id} of connection ${livelink} not found`);
    oneErrorLine(await cli('connections', 'cancel-sync', livelink, 'syn_nope', '--org', 'acme'), `error: sync syn_nope of connection ${livelink} not found`);
    oneErrorLine(await cli('connections', 'cancel-sync', livelink, id, '--org', 'nope'), 'error: org nope not found');
    expect(await stored(id), 'a refused cancel changes nothing').toMatchObject({ status: 'running' });

    const cancelled = await cli('connections', 'cancel-sync', livelink, id, '--org', 'acme', '--json');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ id, connection_id: livelink, status: 'cancelled' });
    expect(await stored(id)).toMatchObject({ status: 'cancelled' });
    const api = await h.request({ method: 'GET', url: `/v1/telematics/connections/${livelink}/syncs/${id}`, key: (await h.key('acme', 'telematics:read')).key });
    expect(api.json<{ sync: Sync }>().sync).toMatchObject({ id, status: 'cancelled' });
    // Its worker writes nothing more: resuming it is refused and queues no reading.
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--resume', id), /^error: sync \w+ was cancelled/);
    expect(await eventsOf(livelink)).toBe(before);

    oneErrorLine(await cli('connections', 'cancel-sync', livelink, id, '--org', 'acme'), `error: sync ${id} already ended (cancelled)`);
    const text = await cli('connections', 'syncs', livelink, '--org', 'acme', '--status', 'cancelled');
    expect(text.stdout).toMatch(new RegExp(`${id}\\s+cancelled\\s`));
  });

  it('a sync that fails is one error line, exit 1', async () => {
    sim.setMode('vendor1_livelink', { kind: 'reject' });
    const res = await cli('connections', 'replay', livelink, '--org', 'acme', ...window());
    oneErrorLine(res, /^error: sync syn_\w+ failed: .+/);
  });

  it('bad input: one line, exit 1, nothing queued', async () => {
    const count = async () => (await h.gateway.database.db.selectFrom('telematics_syncs').select('id').execute()).length;
    const before = await count();
    const [, from, , to] = window();
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    oneErrorLine(await cli('connections', 'replay', 'con_nope', '--org', 'acme', ...window()), 'error: connection con_nope not found');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'other', ...window()), `error: connection ${livelink} not found`);
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'nope', ...window()), 'error: org nope not found');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--from', to ?? '', '--to', from ?? ''), 'error: from must be before to');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--from', '2026-01-01', '--to', hourAgo), 'error: from must be an ISO 8601 timestamp with a zone (Z or +hh:mm)');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--from', new Date(Date.now() - 40 * DAY_MS).toISOString(), '--to', hourAgo), 'error: the window is at most 31 days');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--from', hourAgo, '--to', new Date(Date.now() + DAY_MS).toISOString()), 'error: to must not be in the future');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--from', hourAgo), 'error: give the window with --from and --to (ISO 8601 with a zone), or --resume <sync id>');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--resume', 'syn_nope', ...window()), 'error: --resume follows an existing sync: give it without --from and --to');
    oneErrorLine(await cli('connections', 'replay', livelink, '--org', 'acme', '--resume', 'syn_nope'), `error: sync syn_nope of connection ${livelink} not found`);
    const tpms = await connect('vendor13');
    oneErrorLine(await cli('connections', 'replay', tpms, '--org', 'acme', ...window()), /^error: vendor13 keeps no history the gateway can read/);
    expect(await count()).toBe(before);

    oneErrorLine(await cli('connections', 'syncs', 'con_nope', '--org', 'acme'), 'error: connection con_nope not found');
    oneErrorLine(await cli('connections', 'syncs', livelink, '--org', 'acme', '--status', 'done'), 'error: --status must be queued, running, completed, failed or cancelled');
    oneErrorLine(await cli('connections', 'syncs', livelink, '--org', 'acme', '--limit', '0'), 'error: --limit must be a whole number from 1 to 200');
  });
});
