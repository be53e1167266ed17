import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a receiver got: its headers and its body exactly as sent. */
export interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * A real loopback HTTP receiver, as a partner's would be: it answers `status` (200 unless set) and records each request.
 * `stop` closes its port (connections are refused) and `start` opens the same port again.
 */
export interface Receiver {
  url: string;
  received: Received[];
  status: number;
  /** Headers sent with each answer besides the defaults (a Retry-After). */
  headers: Record<string, string>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

function flat(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
}

export async function startReceiver(): Promise<Receiver> {
  let server: Server | undefined;
  let port = 0;
  const receiver: Receiver = {
    url: '',
    received: [],
    status: 200,
    headers: {},
    async start() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          receiver.received.push({ headers: flat(req.headers), body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(receiver.status, { 'content-type': 'text/plain', connection: 'close', ...receiver.headers }).end(receiver.status < 300 ? 'ok' : `no thanks (${receiver.status})`);
        });
      });
      await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
      port = (s.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}/hooks`;
      server = s;
    },
    async stop() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await receiver.start();
  return receiver;
}
