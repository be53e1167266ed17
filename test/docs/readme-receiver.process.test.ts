import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/core/clock.js';
import { freePort } from '../platform/outbox/process-support.js';
import { type Harness, startHarness } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';

const repo = join(import.meta.dirname, '../..');

/** The README's receiver example, as a partner would paste it, on the port given instead of 4000. */
function readmeReceiver(port: number): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("A receiver, with the spec's reference library"));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined || !code.includes('.listen(4000)')) throw new Error('README: the receiver example (listening on 4000) is gone');
  return code.replace('.listen(4000)', `.listen(${port}, '127.0.0.1')`);
}

// The example runs on the embedded default; the PostgreSQL pass has nothing to add.
const otherPass = process.env.TEST_DIALECTS !== undefined && !process.env.TEST_DIALECTS.split(',').includes('sqlite');

describe.skipIf(otherPass)("the README's webhook receiver", () => {
  let h: Harness;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    child?.kill('SIGTERM');
    await h?.close();
  });
  beforeAll(async () => {
    h = await startHarness('sqlite', { clock: new ManualClock(new Date()), env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  });

  it('verifies a delivery from the gateway and refuses an unsigned one', async () => {
    const key = (await h.key('acme', 'all')).key;
    const port = await freePort();
    const created = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key, payload: { url: `http://127.0.0.1:${port}/`, event_types: ['*'] } });
    expect(created.statusCode, created.body).toBe(201);
    const { endpoint, secret } = created.json<{ endpoint: { id: string }; secret: string }>();
    // `--eval` resolves `standardwebhooks` from the working directory: the repository's own node_modules.
    child = spawn(process.execPath, ['--input-type=module', '--eval', readmeReceiver(port)], { cwd: repo, env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' })).status === 400, { what: 'the receiver to listen (and refuse an unsigned POST)' });

    const test = await h.request({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.id}/test`, key });
    const eventId = test.json<{ delivery: { event_id: string } }>().delivery.event_id;
    for (let i = 0; i < 5 && (await h.gateway.delivery.drainOnce()) > 0; i++);
    const deliveries = (await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key })).json<{ deliveries: { status: string; attempts: { status_code: number }[] }[] }>().deliveries;
    expect(deliveries[0]).toMatchObject({ status: 'delivered', attempts: [{ status_code: 204 }] });
    await waitFor(() => out.includes(`${eventId} webhook.test`), { what: 'the receiver to log the event' });
  });
});
