import { describe, expect, it } from 'vitest';
import { describeDatabase } from '../../../src/cli/serve.js';
import { ConfigError } from '../../../src/config.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { WritableHostLocator } from '../../../src/platform/db/postgres-failover.js';
import { parsePostgresTargets, type PostgresHost } from '../../../src/platform/db/postgres-hosts.js';

describe('DATABASE_URL with several hosts (libpq syntax)', () => {
  it('splits the host list off and hands pg a one-host URL with the other parameters as written', () => {
    const t = parsePostgresTargets('postgres://app:p%40ss@db1:5432,db2:5433,[::1]/gateway?target_session_attrs=read-write&connect_timeout=3&options=-c%20search_path%3Dx');
    expect(t.hosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: 'db2', port: 5433 },
      { host: '::1', port: 5432 },
    ]);
    expect(t.targetSessionAttrs).toBe('read-write');
    expect(t.connectTimeoutMs).toBe(3000);
    expect(t.url).toBe('postgres://app:p%40ss@db1:5432/gateway?options=-c%20search_path%3Dx');
  });

  it('defaults to read-write with several hosts and to any with one; libpq raises a connect_timeout under 2 s to 2 s', () => {
    expect(parsePostgresTargets('postgresql://a,b/db').targetSessionAttrs).toBe('read-write');
    expect(parsePostgresTargets('postgres://u@a:6000/db')).toMatchObject({ hosts: [{ host: 'a', port: 6000 }], targetSessionAttrs: 'any', connectTimeoutMs: undefined });
    expect(parsePostgresTargets('postgres://a/db?connect_timeout=1').connectTimeoutMs).toBe(2000);
    expect(parsePostgresTargets('postgres://a/db?connect_timeout=0').connectTimeoutMs).toBeUndefined();
    expect(parsePostgresTargets('postgres:///db?host=/tmp').hosts).toEqual([]);
  });

  it('names every host, without credentials, on the listening line', () => {
    expect(describeDatabase('postgres://gw:s3cret@db1:5432,db2:5433/gateway?target_session_attrs=read-write')).toBe('postgres://db1:5432,db2:5433/gateway');
  });

  it.each([
    ['postgres://a,,b/db', /empty/],
    ['postgres://a:99999,b/db', /port of a must be 1-65535/],
    ['postgres://a:x/db', /cannot read host/],
    ['postgres://a,b/db?target_session_attrs=standby', /target_session_attrs must be one of any, read-write, primary/],
    ['postgres://a,b/db?connect_timeout=2.5', /connect_timeout must be whole seconds/],
  ])('refuses %s at start with one clear line', (url, reason) => {
    expect(() => parsePostgresTargets(url)).toThrow(reason);
    expect(() => openDatabase(url)).toThrow(ConfigError);
    expect(() => openDatabase(url)).toThrow(/^invalid configuration: DATABASE_URL: /);
  });
});

describe('the writable host locator', () => {
  const hosts: PostgresHost[] = [
    { host: 'a', port: 1 },
    { host: 'b', port: 2 },
  ];

  it('keeps the host it found until told it failed, then searches again starting after it', async () => {
    const writable = new Set(['a']);
    const probed: string[] = [];
    const locator = new WritableHostLocator(hosts, (h) => {
      probed.push(h.host);
      return Promise.resolve(writable.has(h.host));
    });
    expect((await locator.host()).host).toBe('a');
    expect((await locator.host()).host).toBe('a');
    expect(probed).toEqual(['a']);
    writable.clear();
    writable.add('b');
    locator.forget(hosts[0] as PostgresHost);
    expect((await locator.host()).host).toBe('b');
    expect(probed).toEqual(['a', 'b']);
  });

  it('fails with a connection-class error naming each host while none accepts writes, and one search serves every waiter', async () => {
    let probes = 0;
    const locator = new WritableHostLocator(hosts, (h) => {
      probes += 1;
      return h.host === 'a' ? Promise.reject(new Error('connect ECONNREFUSED')) : Promise.resolve(false);
    });
    const results = await Promise.allSettled([locator.host(), locator.host(), locator.host()]);
    expect(probes).toBe(2);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason as Error & { code: string };
      expect(err.code).toBe('08001');
      expect(err.message).toBe('no PostgreSQL host accepts writes (a:1: connect ECONNREFUSED; b:2 does not accept writes)');
    }
  });
});
