import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../modules/telematics/providers/catalog.js';
import { requireAuth } from './auth.js';
import type { SimContext } from './context.js';
import { fleetOf, type Machine } from './fleet.js';
import { listedMachines, readingTimes } from './reading-quirks.js';

/** When a machine's latest reading was taken (its values) and the time stamped on it: the reading quirks' say. */
export type ReadingTime = (m: Machine) => { taken: Date; stamped: Date };

/** A vendor's read-only JSON API: path -> answer computed from its deterministic fleet at the latest 10-minute tick. */
export type ReadApi = Readonly<Record<string, (fleet: readonly Machine[], timeOf: ReadingTime) => unknown>>;

export function registerReadApi(app: FastifyInstance, provider: Provider, ctx: SimContext, api: ReadApi): void {
  const fleet = fleetOf(provider.id, ctx.fleetSize);
  const guarded = { preHandler: requireAuth(provider, ctx) };
  for (const [path, answer] of Object.entries(api)) {
    app.get(path, guarded, (request) => {
      const now = ctx.now();
      const tick = new Date(Math.floor(now.getTime() / 600_000) * 600_000);
      const quirks = ctx.fleet(provider.id, request).readings ?? {};
      return answer(listedMachines(provider.id, fleet, quirks), (m) => readingTimes(m, tick, now, fleet.length, quirks));
    });
  }
}

export const accountName = (providerId: string): string => `Simulated fleet (${providerId})`;
