import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { headerRecord } from '../../../src/sim/webhook-receiver-sim.js';

/** One POST a receiver got: its headers and its body exactly as sent. */
export interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * A real loopback HTTP receiver, as a partner's would be: it answers `status` (200 unless set) and records each request.
 * While `holding`, it records a request but never answers it, so the delivery stays in flight.
 * `stop` closes its port (connections are refused, held requests are cut) and `start` opens the same port again.
 */
export interface Receiver {
  url: string;
  received: Received[];
  status: number;
  /** Headers sent with each answer besides the defaults (a Retry-After). */
  headers: Record<string, string>;
  holding: boolean;
  /** Called with each request as it is received, before it is answered (a test moves its clock here). */
  onRequest?: () => void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let server: Server | undefined;
  let port = 0;
  const held = new Set<ServerResponse>();
  const receiver: Receiver = {
    url: '',
    received: [],
    status: 200,
    headers: {},
    holding: false,
    async start() {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          receiver.received.push({ headers: headerRecord(req.headers), body: Buffer.concat(chunks).toString('utf8') });
          receiver.onRequest?.();
          if (receiver.holding) {
            held.add(res);
            res.once('close', () => held.delete(res));
            return;
          }
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
      for (const res of held) res.destroy();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  await receiver.start();
  return receiver;
}
