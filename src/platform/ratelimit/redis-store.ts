import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimitStore } from './ratelimit.types.js';
import { decide } from './sliding-window.js';

/**
 * Mirrors rollWindow() and admits() in sliding-window.ts line for line; change them together.
 * Runs atomically in Redis, so every gateway instance sharing the server shares one budget.
 * KEYS[1] = state hash {ws, cur, prev}; ARGV = nowMs, windowMs, limit (caller's clock, not TIME,
 * so tests can inject time). Rejected hits write nothing; returns {allowed, ws, cur, prev}
 * (integers only: Redis truncates Lua numbers in replies) and JS derives the decision from them.
 */
const SLIDING_WINDOW_LUA = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local stored = redis.call('HMGET', KEYS[1], 'ws', 'cur', 'prev')
local sws = tonumber(stored[1])
local cur = tonumber(stored[2]) or 0
local prev = tonumber(stored[3]) or 0
local ws = now - (now % win)
if sws == nil then
  cur = 0
  prev = 0
elseif sws >= ws then
  ws = sws
elseif sws + win == ws then
  prev = cur
  cur = 0
else
  cur = 0
  prev = 0
end
local elapsed = now - ws
if elapsed < 0 then elapsed = 0 end
local allowed = 0
if prev * (win - elapsed) + cur * win + win <= limit * win then
  allowed = 1
  cur = cur + 1
  redis.call('HSET', KEYS[1], 'ws', ws, 'cur', cur, 'prev', prev)
  redis.call('PEXPIRE', KEYS[1], 2 * win)
end
return {allowed, ws, cur, prev}
`;

const SCRIPT_SHA = createHash('sha1').update(SLIDING_WINDOW_LUA).digest('hex');

/** Redis-backed store; one EVALSHA round trip per hit. */
export class RedisRateLimitStore implements RateLimitStore {
  /**
   * @param client connected ioredis client
   * @param keyPrefix namespace for the state hashes, e.g. `gw:rl:`
   * @param ownsClient close() quits the client only when this store created it
   */
  constructor(
    private readonly client: Redis,
    private readonly keyPrefix = 'gw:rl:',
    private readonly ownsClient = false,
  ) {}

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateLimitDecision> {
    const reply = await this.run(this.keyPrefix + key, [nowMs, windowMs, limit]);
    const [allowed, windowStart, current, previous] = parseReply(reply);
    return decide(allowed === 1, { windowStart, current, previous }, nowMs, windowMs, limit);
  }

  async close(): Promise<void> {
    if (!this.ownsClient) return;
    // quit() waits for pending replies but never settles on a client that is not connected.
    if (this.client.status === 'ready') await this.client.quit();
    else this.client.disconnect();
  }

  /** EVALSHA, falling back to EVAL once when the server's script cache was flushed or fails over. */
  private async run(key: string, args: number[]): Promise<unknown> {
    try {
      return await this.client.evalsha(SCRIPT_SHA, 1, key, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.client.eval(SLIDING_WINDOW_LUA, 1, key, ...args);
    }
  }
}

function parseReply(reply: unknown): [number, number, number, number] {
  if (Array.isArray(reply) && reply.length === 4) {
    const [allowed, windowStart, current, previous] = reply as unknown[];
    if (typeof allowed === 'number' && typeof windowStart === 'number' && typeof current === 'number' && typeof previous === 'number') {
      return [allowed, windowStart, current, previous];
    }
  }
  throw new Error(`unexpected rate-limit script reply: ${JSON.stringify(reply)}`);
}
