import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/platform/auth/api-key.js';
import { AppError } from '../../../src/platform/core/errors.js';
import { CONNECT_TOKEN_LIFETIME_MS } from '../../../src/modules/telematics/connect/connect-tokens.service.js';
import { PROVIDERS } from '../../../src/modules/telematics/providers/catalog.js';
import { useInProcessCli } from '../../support/cli.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const TOKEN_SHAPE = /^ct_[A-Za-z0-9_-]{32}$/;

describe('telematics providers', () => {
  it('lists the spec\'s 21 providers once each, by group', () => {
    expect(PROVIDERS).toHaveLength(21);
    expect(new Set(PROVIDERS.map((p) => p.id)).size).toBe(21);
    const count = (group: string) => PROVIDERS.filter((p) => p.group === group).length;
    expect([count('iso15143'), count('oem_oauth'), count('aggregator'), count('tpms'), count('stub')]).toEqual([10, 2, 5, 2, 2]);
  });
});

describe.each(dialects)('connect tokens (%s)', (dialect) => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness(dialect);
    await h.org('acme');
  });
  afterAll(() => h.close());

  const stored = (hash: string) => h.gateway.database.db.selectFrom('telematics_connect_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();

  it('issues a single-use ct_ token that lives 15 minutes; only its SHA-256 hash is stored', async () => {
    const issued = await h.gateway.services.connectTokens.issue({ org: 'acme', provider: 'vendor1_livelink', label: ' Yard 3 ' });
    expect(issued.connect_token).toMatch(TOKEN_SHAPE);
    expect(issued).toMatchObject({ org: 'acme', provider: 'vendor1_livelink', label: 'Yard 3' });
    expect(new Date(issued.expires_at).getTime() - h.clock.now().getTime()).toBe(CONNECT_TOKEN_LIFETIME_MS);
    const row = await stored(sha256Hex(issued.connect_token));
    expect(row).toMatchObject({ provider: 'vendor1_livelink', label: 'Yard 3', used_at: null, expires_at: issued.expires_at });
    expect(JSON.stringify(row)).not.toContain(issued.connect_token);
  });

  it('issues a token for any provider when none is fixed, and a different token each time', async () => {
    const a = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const b = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    expect(a.connect_token).not.toBe(b.connect_token);
    expect(a.provider).toBeNull();
    expect((await stored(sha256Hex(a.connect_token)))?.provider).toBeNull();
  });

  it.each([
    [{ org: 'nope' }, 'not_found', /org nope not found/],
    [{ org: 'acme', provider: 'vendor99' }, 'invalid_input', /unknown provider 'vendor99'; valid providers: vendor1_livelink, .*vendor21_360/],
    [{ org: 'acme', provider: 'vendor20_tireview' }, 'provider_not_connectable', /contact the vendor/],
    [{ org: 'acme', label: 'x'.repeat(101) }, 'invalid_input', /label must be at most 100 characters/],
    [{ org: 'acme', label: 'a\u0000b' }, 'invalid_input', /label/],
    [{ org: 'acme', label: '   ' }, 'invalid_input', /label must not be empty/],
  ])('refuses %j', async (input, code, message) => {
    const error = await h.gateway.services.connectTokens.issue(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(code);
    expect((error as AppError).message).toMatch(message);
  });
});

describe('connect-tokens CLI', () => {
  const gateway = useInProcessCli('connect-tokens');

  it('creates a token shown once, as text or JSON, and refuses bad input with one line and exit code 1', async () => {
    expect((await gateway('orgs', 'create', 'acme')).code).toBe(0);
    const text = await gateway('connect-tokens', 'create', '--org', 'acme', '--provider', 'vendor13', '--label', 'Fleet A');
    expect(text.code).toBe(0);
    const [token = ''] = text.stdout.split('\n');
    expect(token).toMatch(TOKEN_SHAPE);
    expect(text.stdout).toMatch(/single use, expires \d{4}-\d{2}-\d{2}T/);
    const json = await gateway('connect-tokens', 'create', '--org', 'acme', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ connect_token: expect.stringMatching(TOKEN_SHAPE) as unknown, org: 'acme', provider: null, label: null });

    const bad = await gateway('connect-tokens', 'create', '--org', 'acme', '--provider', 'vendor99');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^error: unknown provider 'vendor99'/);
    expect((await gateway('connect-tokens', 'create', '--org', 'nope')).stderr.trim()).toBe('error: org nope not found');

    // The plaintext token is nowhere in the database files.
    const dir = (process.env.DATABASE_URL ?? '').replace(/^sqlite:/, '').replace(/[^/]+$/, '');
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes(token), file).toBe(false);
  });
});
