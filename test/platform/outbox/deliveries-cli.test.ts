import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import type { DeliveryView } from '../../../src/platform/outbox/deliveries.service.js';
import { orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { childEnv, freePort, mainJs, requireBuild } from './process-support.js';

const exec = promisify(execFile);

describe.each(dialects)('deliveries CLI (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;

  beforeAll(async () => {
    requireBuild();
    sim = await startHubSim();
    sim.rejectType('order.created', 'dealer not onboarded');
    h = await startHarness(dialect, { env: { HUB_URL: sim.url } });
    await seedCatalog(h, 'acme');
    await seedCatalog(h, 'globex');
    for (const org of ['acme', 'globex']) {
      const { key } = await h.key(org, 'orders:write');
      expect((await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload(`PO-CLI-${org}`), key })).statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });

  const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await exec(process.execPath, [mainJs, ...args], { env: childEnv(h) });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };

  it('lists rejected deliveries with the hub\'s reason, per org, as JSON and as a table', async () => {
    const all = (JSON.parse((await cli('deliveries', 'list', '--status', 'rejected', '--json')).stdout) as { deliveries: DeliveryView[] }).deliveries;
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ type: 'order.created', status: 'rejected', last_error: 'dealer not onboarded', attempts: 1 });
    const acme = (JSON.parse((await cli('deliveries', 'list', '--status', 'rejected', '--org', 'acme', '--json')).stdout) as { deliveries: DeliveryView[] }).deliveries;
    expect(acme).toHaveLength(1);
    const human = await cli('deliveries', 'list', '--status', 'rejected');
    expect(human.stdout).toContain('dealer not onboarded');
    expect(JSON.parse((await cli('deliveries', 'list', '--status', 'queued', '--json')).stdout)).toEqual({ deliveries: [] });
  });

  it('retries one delivery or every rejected one; the worker then delivers them', async () => {
    sim.rejectType(null);
    const [first] = (JSON.parse((await cli('deliveries', 'list', '--status', 'rejected', '--org', 'acme', '--json')).stdout) as { deliveries: DeliveryView[] }).deliveries;
    expect(JSON.parse((await cli('deliveries', 'retry', first?.id ?? '', '--json')).stdout)).toEqual({ retried: 1 });
    expect(JSON.parse((await cli('deliveries', 'retry', '--all-rejected', '--json')).stdout)).toEqual({ retried: 1 });
    expect((JSON.parse((await cli('deliveries', 'list', '--status', 'queued', '--json')).stdout) as { deliveries: DeliveryView[] }).deliveries).toHaveLength(2);
    expect(await h.gateway.delivery.drainOnce()).toBe(2);
    expect(sim.events().filter((e) => e.type === 'order.created')).toHaveLength(2);
  });

  it('refuses bad use with one clear line and exit code 1', async () => {
    const neither = await cli('deliveries', 'retry');
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/give a delivery id or --all-rejected/);
    const delivered = (JSON.parse((await cli('deliveries', 'list', '--json')).stdout) as { deliveries: DeliveryView[] }).deliveries;
    const again = await cli('deliveries', 'retry', delivered[0]?.id ?? '');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already delivered/);
    expect((await cli('deliveries', 'retry', 'evt_nope')).stderr).toMatch(/not found/);
    expect((await cli('deliveries', 'list', '--status', 'lost')).code).not.toBe(0);
    expect((await cli('deliveries', 'list', '--org', 'no-such-org')).code).toBe(1);
  });
});

describe('hub-sim CLI', () => {
  it('serves the hub contract on --port and checks HUB_TOKEN', async () => {
    requireBuild();
    const port = await freePort();
    const child = spawn(process.execPath, [mainJs, 'hub-sim', '--port', String(port)], {
      env: { PATH: process.env.PATH, HUB_TOKEN: 'sim-token' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
      });
      await waitFor(() => out.includes(`127.0.0.1:${port}`), { what: 'the simulator to listen' });
      const event = { id: 'e1', type: 'order.created', org_id: 'org_1', occurred_at: '2026-01-01T00:00:00.000Z', data: {} };
      const post = (auth?: string) =>
        fetch(`http://127.0.0.1:${port}/v1/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': 'b1', ...(auth ? { authorization: auth } : {}) },
          body: JSON.stringify({ events: [event] }),
        });
      expect((await post()).status).toBe(401);
      const ok = await post('Bearer sim-token');
      expect(await ok.json()).toEqual({ accepted: ['e1'], duplicates: [], rejected: [] });
    } finally {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    expect(child.exitCode ?? 0).toBe(0);
  });
});
