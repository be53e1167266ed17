import { startVendorSim } from '../src/sim/vendor-sim.js';

// The vendor simulator in a process of its own (startVendorSimProcess): the pages it writes for a fleet's replay must
// not hold up the event loop the load generator measures latencies on. argv: fleet size, page size. Prints its URL.
const [fleetSize = '2000', pageSize = '100'] = process.argv.slice(2);
const sim = await startVendorSim({ fleetSize: Number(fleetSize), pageSize: Number(pageSize) });
process.stdout.write(`${sim.url}\n`);
process.once('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
