import { connect, type Socket } from 'node:net';

/* Clients on a raw socket, for what a real HTTP client library hides: partial uploads, early answers, closes. */

/** A raw client: what it sent, everything the server wrote back, and whether the server closed on it. */
export interface RawClient {
  socket: Socket;
  received(): string;
  /** Resolves with everything received once the server has closed the connection. */
  closed: Promise<string>;
}

export async function open(port: number): Promise<RawClient> {
  const socket = connect({ port, host: '127.0.0.1' });
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (data += chunk));
  socket.on('error', () => undefined); // a write racing the server's close: the close is what is checked
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(data)));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  return { socket, received: () => data, closed };
}

/** The head of an upload announcing a body of `length` bytes (JSON unless `headers` say otherwise). */
export function uploadHead(path: string, length: number, headers: Record<string, string> = {}, method = 'POST'): string {
  const lines = Object.entries({ host: 'localhost', 'content-type': 'application/json', 'content-length': String(length), ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** Status and headers of each HTTP answer in a raw exchange. */
export function answers(raw: string): { status: number; headers: Record<string, string> }[] {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map((m) => ({
    status: Number(m[1]),
    headers: Object.fromEntries((m[2] ?? '').split('\r\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()])),
  }));
}


/**
 * Sends an upload's head announcing 1 KB more than `body`, then half of `body`: the rest never comes. Resolves with the
 * answers once the server has closed the connection (a test timeout if it never does).
 */
export async function stalledUpload(port: number, method: string, path: string, headers: Record<string, string>, body: string): Promise<ReturnType<typeof answers>> {
  const client = await open(port);
  client.socket.write(uploadHead(path, Buffer.byteLength(body) + 1024, headers, method) + body.slice(0, Math.floor(body.length / 2)));
  return answers(await client.closed);
}
