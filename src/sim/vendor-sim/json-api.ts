import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../modules/telematics/providers/catalog.js';
import { requireAuth } from './auth.js';
import type { SimContext } from './context.js';
import { fleetOf, type Machine } from './fleet.js';

/** A vendor's read-only JSON API: path -> answer computed from its deterministic fleet at the latest 10-minute tick. */
export type ReadApi = Readonly<Record<string, (fleet: Machine[], at: Date) => unknown>>;

export function registerReadApi(app: FastifyInstance, provider: Provider, ctx: SimContext, api: ReadApi): void {
  const fleet = fleetOf(provider.id, ctx.fleetSize);
  const guarded = { preHandler: requireAuth(provider, ctx) };
  for (const [path, answer] of Object.entries(api)) {
    app.get(path, guarded, () => answer(fleet, new Date(Math.floor(ctx.now().getTime() / 600_000) * 600_000)));
  }
}

export const accountName = (providerId: string): string => `Simulated fleet (${providerId})`;
