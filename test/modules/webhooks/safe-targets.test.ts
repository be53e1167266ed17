import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { isRefusedAddress } from '../../../src/modules/webhooks/safe-target.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { type Receiver, startReceiver } from './receiver.js';

describe('refused addresses', () => {
  it('refuses private, loopback, link-local, metadata and mapped forms; allows public ones', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '10.0.0.1', '10.255.0.9', '172.16.4.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isRefusedAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isRefusedAddress(a), a).toBe(false);
  });
});

describe.each(dialects)('webhook targets without the allow list (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness(dialect);
    key = (await h.key('acme', 'all')).key;
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.stop();
  });

  it('refuses at create a URL that is not https or whose host is (or resolves to) a refused address', async () => {
    const port = new URL(receiver.url).port;
    for (const url of [
      receiver.url,
      `https://127.0.0.1:${port}/hooks`,
      'https://10.0.0.8/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      `https://localhost:${port}/hooks`,
    ]) {
      const res = await h.request({ method: 'POST', url: '/v1/webhook-endpoints', key, payload: { url, event_types: ['*'] } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json<{ code: string; details: unknown }>()).toMatchObject({ code: 'invalid_input', details: { field: 'url' } });
    }
    expect(receiver.received).toEqual([]);
  });

  it('refuses at delivery a target that became unsafe since it was created (checked at each attempt, never sent)', async () => {
    // Another process on the same database, whose operator allows loopback, subscribes the receiver...
    const literal = ['127.0.0.1', '10.0.0.8', '169.254.169.254', '::1'];
    const config = { ...h.config, environment: { ...h.config.environment, WEBHOOK_ALLOWED_HOSTS: ['localhost', ...literal].join(',') } };
    const allowing: Gateway = await createGateway(config, { clock: h.clock, migrate: false, ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}) });
    try {
      const orgId = (await h.org('acme')).id;
      const created = await allowing.database.db.transaction().execute((tx) => allowing.services.webhooks.create(tx, orgId, { url: `https://localhost:${new URL(receiver.url).port}/hooks`, event_types: ['*'] }));
      // ...and this gateway, without the allow list, delivers: the name is resolved again, to loopback, and refused.
      const test = await h.request({ method: 'POST', url: `/v1/webhook-endpoints/${created.endpoint.id}/test`, key });
      expect(test.statusCode, test.body).toBe(202);
      for (let i = 0; i < 10 && (await h.gateway.delivery.drainOnce()) > 0; i++);
      const res = await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${created.endpoint.id}/deliveries`, key });
      const [delivery] = res.json<{ deliveries: { status: string; attempts: { status_code: number | null; error: string }[] }[] }>().deliveries;
      expect(delivery?.status).toBe('failed');
      expect(delivery?.attempts[0]?.status_code).toBeNull();
      expect(delivery?.attempts[0]?.error).toMatch(/^unsafe target: host localhost resolves to (127\.0\.0\.1|::1), a private, loopback/);
      // Addresses written as such, allowed where they were created: refused here before any connection is tried.
      for (const host of literal) {
        const url = `https://${host.includes(':') ? `[${host}]` : host}/hooks`;
        const endpoint = await allowing.database.db.transaction().execute((tx) => allowing.services.webhooks.create(tx, orgId, { url, event_types: ['*'] }));
        expect((await h.request({ method: 'POST', url: `/v1/webhook-endpoints/${endpoint.endpoint.id}/test`, key })).statusCode).toBe(202);
        for (let i = 0; i < 10 && (await h.gateway.delivery.drainOnce()) > 0; i++);
        const seen = (await h.request({ method: 'GET', url: `/v1/webhook-endpoints/${endpoint.endpoint.id}/deliveries`, key })).json<{ deliveries: { status: string; attempts: { status_code: number | null; error: string }[] }[] }>().deliveries;
        expect(seen[0]?.status, url).toBe('failed');
        expect(seen[0]?.attempts[0]?.error, url).toMatch(/^unsafe target: /);
      }
      expect(receiver.received).toEqual([]);
    } finally {
      await allowing.close();
    }
  });
});
