import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { open, uploadHead } from '../../support/raw-http.js';
import { waitFor } from '../../support/wait-for.js';

// The busy signal background work yields to: the HTTP frame counts a request from its arrival until its response
// closes, answered or dropped by the client (a count that leaked would slow webhooks for good).
describe.each(dialects)('requests in flight (%s)', (dialect) => {
  let h: Harness;
  let port: number;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect);
    apiKey = (await h.key('busy', 'products:write')).key;
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(() => h.close());

  it('is busy while an upload is arriving and idle again once its client drops it', async () => {
    expect(h.gateway.requests.busy).toBe(false);
    const client = await open(port);
    client.socket.write(uploadHead('/v1/products', 1000, { authorization: `Bearer ${apiKey}` }) + '{"sku":');
    await waitFor(() => h.gateway.requests.busy, { what: 'the request counted in' });
    client.socket.destroy();
    await waitFor(() => !h.gateway.requests.busy, { what: 'the dropped request counted out' });
  });

  it('is idle once an answered request is done, and after errors too', async () => {
    for (const url of ['/healthz', '/v1/products', '/no-such-route']) {
      const res = await h.request({ method: 'GET', url });
      expect(res.statusCode).toBeGreaterThan(0);
      await waitFor(() => !h.gateway.requests.busy, { what: `${url} counted out` });
    }
  });
});
