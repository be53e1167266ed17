import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'cli.sqlite')}`, LOG_LEVEL: 'silent' };

const gateway = cliRunner(env);

const json = <T>(out: { stdout: string }): T => JSON.parse(out.stdout) as T;

describe('./bin/gateway', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates, creates and lists orgs', async () => {
    expect(json<{ applied: string[] }>(await gateway('migrate', '--json')).applied).toContain('0001_foundation');
    expect(json<{ applied: string[] }>(await gateway('migrate', '--json')).applied).toEqual([]);
    const org = json<{ slug: string; name: string }>(await gateway('orgs', 'create', 'acme', '--name', 'Acme Tires', '--json'));
    expect(org).toMatchObject({ slug: 'acme', name: 'Acme Tires' });
    const dup = await gateway('orgs', 'create', 'acme');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    expect(json<{ orgs: { slug: string }[] }>(await gateway('orgs', 'list', '--json')).orgs.map((o) => o.slug)).toEqual(['acme']);
    expect((await gateway('orgs', 'create', 'Bad Slug')).code).toBe(1);
  });

  it('creates a key shown once, lists prefixes only, rotates and revokes', async () => {
    const created = json<{ id: string; key: string; org: string; scopes: string[]; expires_at: string | null }>(
      await gateway('keys', 'create', '--org', 'acme', '--scopes', 'products:read,orders:read', '--name', 'ci', '--expires-in', '30d', '--rate-limit', '100', '--json'),
    );
    expect(Object.keys(created).sort()).toEqual(['expires_at', 'id', 'key', 'org', 'scopes']);
    expect(created.key).toMatch(/^trk_live_/);
    expect(created.scopes).toEqual(['orders:read', 'products:read']);
    const human = await gateway('keys', 'list', '--org', 'acme');
    expect(human.stdout).toContain(created.key.slice(0, 13));
    expect(human.stdout).not.toContain(created.key);
    const listed = await gateway('keys', 'list', '--org', 'acme', '--json');
    expect(listed.stdout).not.toContain(created.key);
    const rotated = json<{ id: string; key: string; old_key_expires_at: string }>(await gateway('keys', 'rotate', created.id, '--grace', '2h', '--json'));
    expect(rotated.key).not.toBe(created.key);
    const revoked = json<{ id: string; revoked_at: string }>(await gateway('keys', 'revoke', rotated.id, '--json'));
    expect(revoked.id).toBe(rotated.id);
    const states = json<{ keys: { id: string; state: string }[] }>(await gateway('keys', 'list', '--org', 'acme', '--json')).keys;
    expect(states.find((k) => k.id === rotated.id)?.state).toBe('revoked');
  });

  it('refuses bad input with one clear line and exit code 1', async () => {
    const badScope = await gateway('keys', 'create', '--org', 'acme', '--scopes', 'nope:read');
    expect(badScope.code).toBe(1);
    expect(badScope.stderr.trim()).toBe('error: unknown scope: nope:read');
    expect((await gateway('keys', 'create', '--org', 'ghost', '--scopes', 'all')).stderr).toMatch(/org ghost not found/);
    expect((await gateway('keys', 'create', '--org', 'acme', '--scopes', 'all', '--rate-limit', '-1')).code).not.toBe(0);
    expect((await gateway('keys', 'revoke', 'key_missing')).code).toBe(1);
  });

  it('sets per-org stock thresholds', async () => {
    const out = json<Record<string, number | string>>(await gateway('settings', 'set', '--org', 'acme', 'stock.low_threshold=12', 'stock.backorder_threshold=1', '--json'));
    // The org's whole settings: the thresholds set, and the order currency at its default.
    expect(out).toEqual({ 'stock.low_threshold': 12, 'stock.backorder_threshold': 1, 'orders.currency': 'USD' });
    expect((await gateway('settings', 'set', '--org', 'acme', 'stock.low_threshold=abc')).code).toBe(1);
    expect((await gateway('settings', 'set', '--org', 'acme', 'nonsense')).code).toBe(1);
    expect(json<Record<string, number>>(await gateway('settings', 'show', '--org', 'acme', '--json'))).toEqual(out);
    // The modules' declared settings, with defaults and descriptions.
    expect((await gateway('settings', 'set', '--help')).stdout).toMatch(/stock\.backorder_threshold \(default 0\): stock_qty at or below this is backorder/);
  });

  it('adds and lists the interchange ids an org receives under', async () => {
    const noProfile = await gateway('partners', 'our-ids', 'add', '--org', 'acme', '--isa', 'ZZ/OTHERID');
    expect(noProfile.code).toBe(1);
    expect(noProfile.stderr).toMatch(/no EDI interchange id yet/);
    await gateway('partners', 'create', '--org', 'acme', '--name', 'BuyerCo', '--isa', 'ZZ/BUYERCO', '--our-isa', 'ZZ/TIREGATEWAY', '--json');
    const added = json<{ isa: string; main: boolean }>(await gateway('partners', 'our-ids', 'add', '--org', 'acme', '--isa', 'ZZ/OTHERID', '--json'));
    expect(added).toMatchObject({ isa: 'ZZ/OTHERID', main: false });
    const listed = json<{ interchange_ids: { isa: string; main: boolean }[] }>(await gateway('partners', 'our-ids', 'list', '--org', 'acme', '--json')).interchange_ids;
    expect(listed.map((v) => [v.isa, v.main])).toEqual([
      ['ZZ/TIREGATEWAY', true],
      ['ZZ/OTHERID', false],
    ]);
    expect((await gateway('partners', 'our-ids', 'list', '--org', 'acme')).stdout).toContain('ZZ/OTHERID');
    for (const isa of ['ZZ/OTHERID', 'ZZ/TIREGATEWAY']) {
      const dup = await gateway('partners', 'our-ids', 'add', '--org', 'acme', '--isa', isa);
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/already has interchange id/);
    }
    const bad = await gateway('partners', 'our-ids', 'add', '--org', 'acme', '--isa', 'OTHERID');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--isa must be <qualifier>\/<id>/);
    expect((await gateway('partners', 'our-ids', 'list', '--org', 'ghost')).stderr).toMatch(/org ghost not found/);
  });

  it('fails at start with one clear line on bad configuration', async () => {
    const { code, stderr } = await cliRunner({ ...env, PORT: 'eighty' })('orgs', 'list');
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(/^error: invalid configuration: PORT/);
  });

  it('fails at start with one clear line when the database or Redis cannot be used', async () => {
    const badDb = await cliRunner({ ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', GATEWAY_SECRET: 'x'.repeat(32) })('orgs', 'list');
    expect(badDb.code).toBe(1);
    expect(badDb.stderr.trim()).toMatch(/^error: cannot use the database at DATABASE_URL: .*ECONNREFUSED/);
    expect(badDb.stderr.trim().split('\n')).toHaveLength(1);
    const badRedis = await cliRunner({ ...env, REDIS_URL: 'redis://127.0.0.1:1' })('orgs', 'list');
    expect(badRedis.code).toBe(1);
    expect(badRedis.stderr.trim()).toMatch(/^error: cannot use Redis at REDIS_URL: .*ECONNREFUSED/);
  });
});
