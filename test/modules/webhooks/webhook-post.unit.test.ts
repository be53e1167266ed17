import { describe, expect, it } from 'vitest';
import { TargetPolicy } from '../../../src/modules/webhooks/safe-target.js';
import { postWebhook, webhookAgent } from '../../../src/modules/webhooks/webhook-post.js';

const job = { url: 'https://hooks.example.com/in', eventId: 'evt_1', body: '{}', keys: [new Uint8Array(32)], nowMs: Date.now() };

describe('one webhook attempt', () => {
  it('bounds the target look-up by WEBHOOK_TIMEOUT_MS: a resolver that never answers is a retry, "did not answer within"', async () => {
    const policy = new TargetPolicy([], () => new Promise(() => undefined));
    const agent = webhookAgent(policy);
    try {
      const result = await postWebhook(agent, policy, job, { timeoutMs: 50, retryAfterMaxMs: 1000 });
      expect(result).toMatchObject({ kind: 'retry', reason: 'endpoint did not answer within 50 ms', statusCode: null, snippet: null });
    } finally {
      await agent.close();
    }
  });

  it('still refuses a name that resolves to a private address, and one that does not resolve, before any request', async () => {
    const agent = webhookAgent(new TargetPolicy([]));
    try {
      const privateName = new TargetPolicy([], () => Promise.resolve([{ address: '10.1.2.3', family: 4 }]));
      const refused = await postWebhook(agent, privateName, job, { timeoutMs: 1000, retryAfterMaxMs: 1000 });
      expect(refused.kind).toBe('rejected');
      expect(refused.kind === 'delivered' ? '' : refused.reason).toMatch(/^unsafe target: host hooks\.example\.com resolves to 10\.1\.2\.3/);
      const unknown = new TargetPolicy([], () => Promise.reject(new Error('ENOTFOUND')));
      expect(await postWebhook(agent, unknown, job, { timeoutMs: 1000, retryAfterMaxMs: 1000 })).toMatchObject({ kind: 'rejected', reason: 'unsafe target: host hooks.example.com does not resolve: ENOTFOUND' });
    } finally {
      await agent.close();
    }
  });
});
