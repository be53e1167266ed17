import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** A key whose verification may have changed (revoked, rotated): verifiers drop what they cached of it. */
export interface KeyChange {
  kind: 'api' | 'portal';
  id: string;
}

type Listener = (change: KeyChange) => void;

const isKeyChange = (value: unknown): value is KeyChange =>
  typeof value === 'object' && value !== null && ((value as KeyChange).kind === 'api' || (value as KeyChange).kind === 'portal') && typeof (value as KeyChange).id === 'string';

/**
 * Tells the verifiers that a key changed: this process's at once, and with REDIS_URL every other instance's through a
 * pub/sub channel. Without Redis, or when a message is lost, the other instances' caches still expire after
 * KEY_CACHE_TTL_MS: the channel shortens the delay, the TTL bounds it.
 */
export class KeyChanges {
  private readonly listeners: Listener[] = [];

  constructor(private readonly bus?: { publisher: Redis; subscriber: Redis; channel: string; log: Logger }) {
    bus?.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== bus.channel) return;
      const change = parse(message);
      if (change === undefined) bus.log.warn({ channel }, 'ignored a malformed key change message');
      else this.tell(change);
    });
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Called after the change commits: a verifier that reloads at once must read the new row. */
  async announce(change: KeyChange): Promise<void> {
    this.tell(change);
    if (this.bus === undefined) return;
    // A publish that fails leaves the other instances on the TTL: the change itself is committed, so it is logged, not thrown.
    await this.bus.publisher.publish(this.bus.channel, JSON.stringify(change)).catch((err: unknown) => this.bus?.log.warn({ err }, 'could not publish a key change'));
  }

  async close(): Promise<void> {
    if (this.bus === undefined) return;
    this.bus.subscriber.disconnect();
    this.bus.publisher.disconnect();
    await Promise.resolve();
  }

  private tell(change: KeyChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

function parse(message: string): KeyChange | undefined {
  try {
    const value: unknown = JSON.parse(message);
    return isKeyChange(value) ? { kind: value.kind, id: value.id } : undefined;
  } catch {
    return undefined;
  }
}

/** KeyChanges over Redis at `redisUrl` (two connections: a subscribed one can send nothing else), or in-process only without it. */
export async function createKeyChanges(redisUrl: string | undefined, opts: { channel: string; log: Logger }): Promise<KeyChanges> {
  if (redisUrl === undefined || redisUrl === '') return new KeyChanges();
  // The publisher fails fast while Redis is down (a revocation answers at once; others fall back to the TTL); the
  // subscriber keeps the default queue, through which ioredis subscribes again after a reconnect.
  const connect = async (publisher: boolean): Promise<Redis> => {
    const client = new Redis(redisUrl, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      ...(publisher ? { enableOfflineQueue: false, commandTimeout: 500 } : {}),
    });
    let lastError: Error | undefined;
    client.on('error', (err: Error) => {
      lastError = err;
    });
    try {
      await client.connect();
    } catch (err) {
      client.disconnect();
      throw lastError ?? err;
    }
    return client;
  };
  const publisher = await connect(true);
  const opened: Redis[] = [publisher];
  try {
    const subscriber = await connect(false);
    opened.push(subscriber);
    await subscriber.subscribe(opts.channel);
    return new KeyChanges({ publisher, subscriber, channel: opts.channel, log: opts.log });
  } catch (err) {
    for (const client of opened) client.disconnect();
    throw err;
  }
}
