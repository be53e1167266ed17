import { describe, expect, it } from 'vitest';
import type { AuditEventView } from '../../../src/platform/audit/audit.schemas.js';
import { useInProcessCli } from '../../support/cli.js';


describe('./bin/gateway audit list', () => {
  const cli = useInProcessCli('audit');
  const json = <T>(out: { stdout: string; stderr: string }): T => {
    expect(out.stderr).toBe('');
    return JSON.parse(out.stdout) as T;
  };

  it('records every CLI action as `cli` with no request id, newest first, per org', async () => {
    const org = json<{ id: string }>(await cli('orgs', 'create', 'acme', '--json'));
    await cli('orgs', 'create', 'other', '--json');
    const key = json<{ id: string }>(await cli('keys', 'create', '--org', 'acme', '--scopes', 'all', '--json'));
    const rotated = json<{ id: string }>(await cli('keys', 'rotate', key.id, '--grace', '1h', '--json'));
    await cli('keys', 'revoke', rotated.id, '--json');
    const portal = json<{ id: string }>(await cli('portal-keys', 'create', '--org', 'acme', '--dealer', 'Dealer', '--origins', 'https://d.example', '--json'));
    await cli('portal-keys', 'revoke', portal.id, '--json');
    json(await cli('connect-tokens', 'create', '--org', 'acme', '--json'));

    const events = json<{ events: AuditEventView[] }>(await cli('audit', 'list', '--org', 'acme', '--json')).events;
    expect(events.map((e) => [e.action, e.target])).toEqual([
      ['connect_token.issued', org.id],
      ['portal_key.revoked', portal.id],
      ['portal_key.created', portal.id],
      ['key.revoked', rotated.id],
      ['key.rotated', key.id],
      ['key.created', key.id],
      ['org.created', org.id],
    ]);
    for (const e of events) expect(e).toMatchObject({ actor: 'cli', org: 'acme', request_id: null });
    expect(json<{ events: AuditEventView[] }>(await cli('audit', 'list', '--json')).events.map((e) => e.org)).toContain('other');
    expect(json<{ events: AuditEventView[] }>(await cli('audit', 'list', '--limit', '2', '--json')).events).toHaveLength(2);
    const human = await cli('audit', 'list', '--org', 'acme', '--limit', '1');
    expect(human.stdout).toMatch(/connect_token\.issued/);
    expect(human.stdout).toMatch(/actor/);
  });

  it('refuses a bad limit or an unknown org with one line and exit code 1', async () => {
    for (const args of [['--limit', '0'], ['--limit', 'many'], ['--limit', '501'], ['--org', 'ghost']]) {
      const out = await cli('audit', 'list', ...args);
      expect(out.code, args.join(' ')).toBe(1);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
