import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Child process of the webhooks bench: a partner's receiver on loopback that answers each POST 204 at once and counts
 * them (GET answers the count). It does not verify: what it spends is the partner's, not the gateway's.
 */
let received = 0;
const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
    return;
  }
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
