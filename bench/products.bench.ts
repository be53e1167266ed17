import { benchKey, benchPostgresUrl, createBenchDatabase, type LoadResult, load, postgresEnv, seedProducts, startBaseline, startGateway } from './support.js';
import { ensureWrk, type WrkAvailability, WRK_ROUNDS, wrkLoad } from './wrk.js';

/** One round of the hot paths driven by wrk instead of autocannon, each against bare Fastify and its floor. */
export interface WrkHotPaths {
  baseline: LoadResult;
  healthz: LoadResult;
  product: LoadResult;
  floorFrame: LoadResult;
  floorProduct: LoadResult;
}

export interface ProductsBench {
  baseline: LoadResult;
  /** GET /v1/products/:sku with a valid key on SQLite. */
  gateway: LoadResult;
  ratio: number;
  /** The gateway's GET /healthz (no key, no database): request id, metrics and the access log alone. */
  healthz: LoadResult;
  healthzRatio: number;
  /** Bare Fastify answering after N µs of busy work, N in WORK_BUDGET_US: what the ratio goals leave for the work a request adds. */
  budget: { us: number; result: LoadResult; ratio: number }[];
  /** The floors (baseline-server.ts): the goals' features written straight into a bare Fastify handler. */
  floors: { frame: LoadResult; frameRatio: number; product: LoadResult; productRatio: number };
  /** The same reads driven by wrk, or why wrk could not run here. */
  wrk: { ok: true; rounds: WrkHotPaths[] } | { ok: false; why: string };
  /** The same GET on PostgreSQL (a fresh database on BENCH_DATABASE_URL's server), with the database's own CPU; undefined without it. */
  postgres?: { result: LoadResult; ratio: number };
}

const SKU = 'BENCH-225-45R17';
/** Busy microseconds per request added to bare Fastify for the work-budget rows. */
export const WORK_BUDGET_US = [3, 10, 25];
const path = `/v1/products/${SKU.toLowerCase()}`;

/** GET /v1/products/:sku with a valid key (SQLite, then PostgreSQL when configured) and GET /healthz, against bare Fastify in the same run. */
export async function benchProductGet(durationSec: number): Promise<ProductsBench> {
  const baselineServer = await startBaseline();
  let baseline: LoadResult;
  let gateway: LoadResult;
  let healthz: LoadResult;
  const budget: ProductsBench['budget'] = [];
  let floorFrame: LoadResult;
  let floorProduct: LoadResult;
  const wrkReady: WrkAvailability = ensureWrk();
  let wrk: ProductsBench['wrk'] = wrkReady.ok ? { ok: false, why: 'not run' } : wrkReady;
  try {
    const gw = await startGateway();
    try {
      const headers = benchKey(gw);
      await seedProducts(gw.url, headers, [SKU]);
      // Warm both up so JIT and caches are in the same state when measured.
      await load({ url: baselineServer.url, duration: 2 });
      await load({ url: `${gw.url}${path}`, headers, duration: 2 });
      await load({ url: `${gw.url}/healthz`, duration: 1 });
      baseline = await load({ url: baselineServer.url, duration: durationSec }, { pids: [baselineServer.pid] });
      healthz = await load({ url: `${gw.url}/healthz`, duration: durationSec }, { pids: [gw.pid] });
      gateway = await load({ url: `${gw.url}${path}`, headers, duration: durationSec }, { pids: [gw.pid] });
      if (gateway.non2xx > 0 || gateway.errors > 0) throw new Error(`gateway answered ${gateway.non2xx} non-2xx and ${gateway.errors} errors`);
      if (wrkReady.ok) wrk = { ok: true, rounds: await wrkHotPaths(baselineServer, gw.url, gw.pid, headers, durationSec) };
    } finally {
      await gw.stop();
    }
    for (const us of WORK_BUDGET_US) {
      const result = await load({ url: `${baselineServer.url}/work/${us}`, duration: durationSec }, { pids: [baselineServer.pid] });
      budget.push({ us, result, ratio: result.requestsPerSec / baseline.requestsPerSec });
    }
    floorFrame = await load({ url: `${baselineServer.url}/floor/frame`, duration: durationSec }, { pids: [baselineServer.pid] });
    floorProduct = await load(
      { url: `${baselineServer.url}/floor/product/${SKU}`, headers: { authorization: 'Bearer trk_live_floor' }, duration: durationSec },
      { pids: [baselineServer.pid] },
    );
  } finally {
    await baselineServer.stop();
  }
  const result: ProductsBench = {
    baseline,
    gateway,
    ratio: gateway.requestsPerSec / baseline.requestsPerSec,
    healthz,
    healthzRatio: healthz.requestsPerSec / baseline.requestsPerSec,
    budget,
    wrk,
    floors: {
      frame: floorFrame,
      frameRatio: floorFrame.requestsPerSec / baseline.requestsPerSec,
      product: floorProduct,
      productRatio: floorProduct.requestsPerSec / baseline.requestsPerSec,
    },
  };
  const pgUrl = benchPostgresUrl();
  if (pgUrl !== undefined) {
    const database = await createBenchDatabase(pgUrl);
    try {
      const gw = await startGateway(postgresEnv(database.url));
      try {
        const headers = benchKey(gw);
        await seedProducts(gw.url, headers, [SKU]);
        await load({ url: `${gw.url}${path}`, headers, duration: 2 });
        const pgResult = await load({ url: `${gw.url}${path}`, headers, duration: durationSec }, { pids: [gw.pid], postgres: true });
        if (pgResult.non2xx > 0 || pgResult.errors > 0) throw new Error(`gateway on PostgreSQL answered ${pgResult.non2xx} non-2xx and ${pgResult.errors} errors`);
        result.postgres = { result: pgResult, ratio: pgResult.requestsPerSec / baseline.requestsPerSec };
      } finally {
        await gw.stop();
      }
    } finally {
      await database.drop();
    }
  }
  return result;
}

/**
 * wrk's runs in WRK_ROUNDS rounds, each round one run per target in the order autocannon's are (bare Fastify, then the
 * gateway's, then the floors'), after a warm-up of each under wrk. A gateway route and its floor are compared within a
 * round (minutes apart at most), and the rounds' median is the figure: one pair of runs swings with the machine.
 */
async function wrkHotPaths(
  baselineServer: { url: string; pid: number },
  gatewayUrl: string,
  gatewayPid: number,
  headers: Record<string, string>,
  durationSec: number,
): Promise<WrkHotPaths[]> {
  const targets = {
    baseline: { url: baselineServer.url, pid: baselineServer.pid },
    healthz: { url: `${gatewayUrl}/healthz`, pid: gatewayPid },
    product: { url: `${gatewayUrl}${path}`, headers, pid: gatewayPid },
    floorFrame: { url: `${baselineServer.url}/floor/frame`, pid: baselineServer.pid },
    floorProduct: { url: `${baselineServer.url}/floor/product/${SKU}`, headers: { authorization: 'Bearer trk_live_floor' }, pid: baselineServer.pid },
  };
  for (const { pid: _, ...target } of Object.values(targets)) await wrkLoad({ ...target, duration: 1 });
  const rounds: WrkHotPaths[] = [];
  for (let round = 0; round < WRK_ROUNDS; round++) {
    const runs: Partial<WrkHotPaths> = {};
    for (const [name, { pid, ...target }] of Object.entries(targets)) {
      const result = await wrkLoad({ ...target, duration: durationSec }, { pids: [pid] });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`wrk ${name}: ${result.non2xx} answers of 400 or more and ${result.errors} errors`);
      runs[name as keyof WrkHotPaths] = result;
    }
    rounds.push(runs as WrkHotPaths);
  }
  return rounds;
}
