import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A partner's webhook receiver for the demo: it verifies each delivery with the Standard Webhooks reference library, as a partner would. */

export interface VerifiedDelivery {
  /** The `webhook-id` header: the event id, the same on every redelivery. */
  id: string;
  type: string;
  /** `webhook-timestamp` of this attempt, Unix seconds. */
  timestamp: number;
}

export interface WebhookReceiverSim {
  readonly url: string;
  /** The endpoint's signing secret (`whsec_…`), known once the endpoint is created; until then every delivery is refused. */
  trust(secret: string): void;
  verified(): VerifiedDelivery[];
  close(): Promise<void>;
}

interface WebhookReceiverSimOptions {
  host?: string;
  port?: number;
  /** Told of each delivery that verified. */
  onVerified?: (delivery: VerifiedDelivery) => void;
}

const BODY_CAP_BYTES = 1024 * 1024;

/** Node's request headers as the reference library takes them: one string each. */
export function headerRecord(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
}

export async function startWebhookReceiverSim(opts: WebhookReceiverSimOptions = {}): Promise<WebhookReceiverSim> {
  let verifier: Webhook | undefined;
  const verified: VerifiedDelivery[] = [];
  const server = createServer((req, res) => {
    const answer = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    if (req.method !== 'POST') return answer(405, 'POST only');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_CAP_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > BODY_CAP_BYTES) return answer(413, 'body too large');
      if (verifier === undefined) return answer(503, 'no secret yet');
      // The raw body as received: re-serialised JSON would not verify.
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = headerRecord(req.headers);
      let event: { type?: unknown };
      try {
        event = verifier.verify(body, headers) as { type?: unknown };
      } catch (err) {
        return answer(400, `not verified: ${err instanceof Error ? err.message : String(err)}`);
      }
      const delivery = { id: headers['webhook-id'] ?? '', type: String(event.type), timestamp: Number(headers['webhook-timestamp']) };
      verified.push(delivery);
      opts.onVerified?.(delivery);
      answer(200, 'ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}/webhooks`,
    trust(secret) {
      verifier = new Webhook(secret);
    },
    verified: () => [...verified],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
