import { expect } from 'vitest';
import { findProvider } from '../../../src/modules/telematics/providers/catalog.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { type DialectName, type Harness, startHarness } from '../../support/harness.js';

/** What a fleet owner types for a provider: username and password, an API key, or nothing (OAuth consent). */
export function credentialsFor(providerId: string): Record<string, string> | undefined {
  const kind = findProvider(providerId)?.credentials;
  if (kind === 'username_password') return { username: 'fleet@acme.example', password: 'pw' };
  if (kind === 'api_key') return { api_key: 'key-0001' };
  return undefined;
}

/** A gateway on one clock with the vendor and hub simulators, the org `acme` and a telematics key. */
export interface TelematicsRig {
  h: Harness;
  sim: VendorSim;
  hub: HubSim;
  clock: ManualClock;
  /** A telematics:read,telematics:write key of acme. */
  key: string;
  /** POST /connect of a fresh token for acme, from a client address of its own (the per-IP limit is not what tests meet). */
  connect(provider: string): Promise<{ connection_id: string; next_step?: { type: string; authorize_url: string; expires_at: string } }>;
  /** A client address no other request of this rig used. */
  nextIp(): string;
  close(): Promise<void>;
}

let rigs = 0;

export async function startTelematicsRig(dialect: DialectName, opts: { fleetSize?: number; pageSize?: number; env?: Record<string, string> } = {}): Promise<TelematicsRig> {
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z'));
  const hub = await startHubSim();
  const sim = await startVendorSim({ fleetSize: opts.fleetSize ?? 5, pageSize: opts.pageSize ?? 2, now: () => clock.now() });
  const h = await startHarness(dialect, { env: { HUB_URL: hub.url, VENDOR_SIM_URL: sim.url, VENDOR_TIMEOUT_MS: '500', ...opts.env }, clock });
  await h.org('acme');
  await h.org('other');
  const key = (await h.key('acme', 'telematics:read,telematics:write')).key;
  const net = (rigs += 1) % 250;
  let ip = 0;
  const nextIp = () => `10.${net}.${Math.floor(++ip / 250) % 250}.${(ip % 250) + 1}`;
  return {
    h,
    sim,
    hub,
    clock,
    key,
    nextIp,
    async connect(provider) {
      const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
      const credentials = credentialsFor(provider);
      const r = await h.request({ method: 'POST', url: '/connect', remoteAddress: nextIp(), payload: { connect_token, provider, ...(credentials ? { credentials } : {}) } });
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    },
    async close() {
      await h.close();
      await sim.close();
      await hub.close();
    },
  };
}
