import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/platform/core/clock.js';
import { RequestsInFlight } from '../../src/platform/core/requests-in-flight.js';
import { MAX_YIELD_WAIT_MS, YieldToRequests } from '../../src/platform/core/yield-to-requests.js';

// The decisions alone, on a clock and a request count set by hand: no time passes but the clock's.
describe('background work that yields to requests', () => {
  const setUp = (share: number) => {
    const clock = new ManualClock(new Date('2026-11-28T00:00:00Z'));
    const requests = new RequestsInFlight();
    return { clock, requests, yields: new YieldToRequests(requests, clock, share) };
  };
  const round = (s: ReturnType<typeof setUp>, ms: number) => {
    const grant = s.yields.begin();
    expect(grant).toBeDefined();
    s.clock.advance(ms);
    if (grant !== undefined) s.yields.end(grant);
  };

  it('runs rounds back to back while no request is in flight, and rounds side by side', () => {
    const s = setUp(0.1);
    round(s, 50);
    expect(s.yields.waitMs()).toBe(0);
    const first = s.yields.begin();
    expect(s.yields.begin()).toBeDefined();
    expect(first).toBeDefined();
  });

  it('lets the event loop turn between rounds run back to back, so a request that arrives meanwhile is seen', async () => {
    const s = setUp(0.1);
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    // Rounds of 5 ms of the main thread each, no request in flight: none waits, yet the loop must get a turn.
    for (let i = 0; i < 3 && !turned; i++) {
      const grant = await s.yields.granted();
      const until = performance.now() + 5;
      while (performance.now() < until);
      s.yields.end(grant);
    }
    expect(turned).toBe(true);
  });

  it('while a request is in flight, waits after a round of t for t × (1 − share) / share, one round at a time', () => {
    const s = setUp(0.2);
    s.requests.enter();
    round(s, 30);
    expect(s.yields.waitMs()).toBe(120);
    expect(s.yields.begin()).toBeUndefined();
    s.clock.advance(119);
    expect(s.yields.begin()).toBeUndefined();
    s.clock.advance(1);
    const grant = s.yields.begin();
    expect(grant).toBeDefined();
    // Another round while this one runs waits for it.
    expect(s.yields.begin()).toBeUndefined();
    // The request done: the held-back round may go at once.
    s.requests.leave();
    expect(s.yields.waitMs()).toBe(0);
  });

  it('counts the load as going on for a second after requests were last seen in flight (what sizes background writes)', () => {
    const s = setUp(0.1);
    expect(s.yields.underLoad).toBe(false);
    s.requests.enter();
    expect(s.yields.underLoad).toBe(true);
    s.requests.leave();
    // A steady load's moment with none in flight: rounds may go, but writes stay small.
    expect(s.yields.busy).toBe(false);
    s.clock.advance(999);
    expect(s.yields.underLoad).toBe(true);
    s.clock.advance(1);
    expect(s.yields.underLoad).toBe(false);
  });

  it('never waits more than a second, however long a round took', () => {
    const s = setUp(0.01);
    s.requests.enter();
    round(s, 60_000);
    expect(s.yields.waitMs()).toBe(MAX_YIELD_WAIT_MS);
    s.clock.advance(MAX_YIELD_WAIT_MS);
    expect(s.yields.begin()).toBeDefined();
  });

  it('granted waits for its turn (the round ahead ending, the wait, or the requests finishing), then starts a round', async () => {
    const s = setUp(0.5);
    s.requests.enter();
    const ahead = s.yields.begin();
    let started = false;
    const next = s.yields.granted().then((grant) => {
      started = true;
      return grant;
    });
    await vi.waitFor(() => expect(s.yields.waiting).toBe(1));
    s.clock.advance(10);
    if (ahead !== undefined) s.yields.end(ahead);
    expect(started).toBe(false);
    s.requests.leave();
    s.yields.end(await next);
    expect(started).toBe(true);
    expect(s.yields.waiting).toBe(0);
    // `run` is a round around its work, ended when the work throws too.
    s.requests.enter();
    await expect(s.yields.run(() => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(s.yields.begin()).toBeDefined();
  });

  it('counts a request until it leaves, never below none', () => {
    const requests = new RequestsInFlight();
    requests.leave();
    expect(requests.busy).toBe(false);
    requests.enter();
    requests.enter();
    requests.leave();
    expect(requests.busy).toBe(true);
    requests.leave();
    expect(requests.busy).toBe(false);
  });
});
