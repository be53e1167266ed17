import { type LoadResult, load, startBaseline, startGateway } from './support.js';

export interface ProductsBench {
  baseline: LoadResult;
  gateway: LoadResult;
  ratio: number;
  /** The gateway's GET /healthz (no key, no database): what the HTTP frame alone costs, for reading the ratio. */
  healthz: LoadResult;
  healthzRatio: number;
}

/** GET /v1/products/:sku with a valid key, against bare Fastify in the same run. */
export async function benchProductGet(durationSec: number): Promise<ProductsBench> {
  const baselineServer = await startBaseline();
  const gw = await startGateway();
  try {
    gw.cli('orgs', 'create', 'bench');
    const { key } = JSON.parse(gw.cli('keys', 'create', '--org', 'bench', '--scopes', 'all', '--rate-limit', '100000000', '--json')) as { key: string };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${gw.url}/v1/products`, { method: 'POST', headers, body: JSON.stringify({ sku: 'BENCH-225-45R17', name: 'Bench tire', stock_qty: 40 }) });
    if (created.status !== 201) throw new Error(`seeding failed: ${created.status} ${await created.text()}`);
    // Warm both up so JIT and caches are in the same state when measured.
    await load({ url: baselineServer.url, duration: 2 });
    await load({ url: `${gw.url}/v1/products/bench-225-45r17`, headers, duration: 2 });
    const baseline = await load({ url: baselineServer.url, duration: durationSec });
    const gateway = await load({ url: `${gw.url}/v1/products/bench-225-45r17`, headers, duration: durationSec });
    if (gateway.non2xx > 0 || gateway.errors > 0) throw new Error(`gateway answered ${gateway.non2xx} non-2xx and ${gateway.errors} errors`);
    const healthz = await load({ url: `${gw.url}/healthz`, duration: durationSec });
    return {
      baseline,
      gateway,
      ratio: gateway.requestsPerSec / baseline.requestsPerSec,
      healthz,
      healthzRatio: healthz.requestsPerSec / baseline.requestsPerSec,
    };
  } finally {
    await gw.stop();
    await baselineServer.stop();
  }
}
