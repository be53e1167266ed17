import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../core/errors.js';
import { answerOnSocket } from './error-handler.js';

const refusal = (max: number) => new AppError('rate_limited', `too many open connections from this client (at most ${max})`, undefined, { 'retry-after': '1' });

/**
 * Caps what one client address holds open, so a few slow clients cannot take every socket. Without a trusted proxy
 * each peer is a client: its sockets are counted as they connect and the one past the cap is answered 429 and closed
 * at once. Behind TRUST_PROXY the peer is the proxy, so the forwarded client's requests in flight are counted instead.
 */
export class ConnectionCap {
  private readonly open = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** The server's 'connection' listener (no trusted proxy): counts the socket until it closes. */
  readonly onConnection = (socket: Socket): void => {
    const address = socket.remoteAddress;
    if (address === undefined) return;
    if (!this.take(address)) {
      answerOnSocket(socket, refusal(this.max));
      socket.destroy();
      return;
    }
    socket.once('close', () => this.release(address));
  };

  /** onRequest hook (behind a trusted proxy): counts the request against request.ip until its answer is done or dropped. */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    const address = request.ip;
    if (!this.take(address)) {
      done(refusal(this.max));
      return;
    }
    reply.raw.once('close', () => this.release(address));
    done();
  };

  private take(address: string): boolean {
    const held = this.open.get(address) ?? 0;
    if (held >= this.max) return false;
    this.open.set(address, held + 1);
    return true;
  }

  private release(address: string): void {
    const held = (this.open.get(address) ?? 1) - 1;
    if (held <= 0) this.open.delete(address);
    else this.open.set(address, held);
  }
}
