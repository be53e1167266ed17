import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/core/clock.js';
import { type Harness, startHarness } from '../support/harness.js';
import { cliRunner } from '../support/cli.js';
import { type Receiver, startReceiver } from '../modules/webhooks/receiver.js';

describe('./bin/gateway webhooks', () => {
  let h: Harness;
  let receiver: Receiver;
  let gateway: ReturnType<typeof cliRunner>;
  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.status = 500;
    h = await startHarness('sqlite', { clock: new ManualClock(new Date()), env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_MAX_ATTEMPTS: '1' } });
    gateway = cliRunner({ ...process.env, DATABASE_URL: h.databaseUrl, GATEWAY_SECRET: h.config.GATEWAY_SECRET, LOG_LEVEL: 'silent', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
  });

  it("lists an org's endpoints and deliveries and retries a failed one with the same webhook-id", async () => {
    const key = (await h.key('acme', 'webhooks:read,webhooks:write')).key;
    const created = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key, payload: { url: receiver.url, event_types: ['*'] } });
    const endpointId = created.json<{ endpoint: { id: string } }>().endpoint.id;
    await h.request({ method: 'POST', url: `/v1/webhook-endpoints/${endpointId}/test`, key });
    for (let i = 0; i < 5 && (await h.gateway.delivery.drainOnce()) > 0; i++);

    const listed = (JSON.parse((await gateway('webhooks', 'list', '--org', 'acme', '--json')).stdout) as { endpoints: { id: string; url: string }[] }).endpoints;
    expect(listed).toMatchObject([{ id: endpointId, url: receiver.url }]);
    const { deliveries } = JSON.parse((await gateway('webhooks', 'deliveries', endpointId, '--org', 'acme', '--json')).stdout) as { deliveries: { id: string; status: string; event_id: string }[] };
    expect(deliveries).toMatchObject([{ status: 'failed' }]);
    const [failed] = deliveries;
    if (!failed) throw new Error('no delivery');
    const retried = await gateway('webhooks', 'retry', endpointId, failed.id, '--org', 'acme');
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stdout).toContain(`webhook-id ${failed.event_id}`);
    receiver.status = 200;
    for (let i = 0; i < 5 && (await h.gateway.delivery.drainOnce()) > 0; i++);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([failed.event_id, failed.event_id]);

    const ghost = await gateway('webhooks', 'list', '--org', 'ghost');
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/org ghost not found/);
    const other = await gateway('webhooks', 'deliveries', 'whe_nosuch', '--org', 'acme');
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/webhook endpoint whe_nosuch not found/);
  });
});
