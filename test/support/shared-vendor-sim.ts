import { startVendorSim, type VendorSim } from '../../src/sim/vendor-sim.js';

let shared: Promise<VendorSim> | undefined;

/**
 * One vendor simulator per test process, always up, that every harness points its providers at by default (so a
 * connection made by a fixture can be polled). Tests that switch a vendor's mode start their own.
 */
export function sharedVendorSim(): Promise<VendorSim> {
  shared ??= startVendorSim({ fleetSize: 6, pageSize: 4 });
  return shared;
}
