import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliRunner } from '../../support/cli.js';
import { fitments } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-objects-cli-'));
const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'cli.sqlite')}`, LOG_LEVEL: 'silent' };

const gateway = cliRunner(env);

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const yamlDefinition = `
key: fitments
label: Vehicle fitments
read_scope: objects:fitments:read
write_scope: objects:fitments:write
key_field: fitment_id
fields:
  - { name: fitment_id, type: string, required: true, max_length: 32 }
  - { name: make, type: string, required: true, filterable: true }
  - { name: year, type: integer, min: 1950, max: 2100, filterable: true }
`;

describe('./bin/gateway objects', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('defines from YAML, redefines from JSON, lists and shows', async () => {
    expect((await gateway('orgs', 'create', 'acme')).code).toBe(0);
    const created = await gateway('objects', 'define', '--org', 'acme', '--file', file('fitments.yaml', yamlDefinition));
    expect(created, created.stderr).toMatchObject({ code: 0, stdout: 'defined fitments v1 (3 fields)\n' });

    const redefined = await gateway('objects', 'define', '--org', 'acme', '--file', file('fitments.json', JSON.stringify(fitments)), '--json');
    expect(redefined.code, redefined.stderr).toBe(0);
    expect(JSON.parse(redefined.stdout)).toMatchObject({ created: false, rows_checked: 0, definition: { key: 'fitments', version: 2 } });

    const listed = await gateway('objects', 'list', '--org', 'acme');
    expect(listed.stdout).toMatch(/^key\s+label\s+read_scope\s+write_scope\s+fields\s+version\n/);
    expect(listed.stdout).toMatch(/fitments\s+Vehicle fitments\s+objects:fitments:read\s+objects:fitments:write\s+9\s+2/);

    const shown = await gateway('objects', 'show', 'fitments', '--org', 'acme');
    expect(shown.stdout).toContain('key: fitments');
    expect(shown.stdout).toContain('row_count: 0');
    expect(JSON.parse((await gateway('objects', 'show', 'fitments', '--org', 'acme', '--json')).stdout)).toMatchObject({ key: 'fitments', version: 2, row_count: 0 });
  });

  it('refuses bad files and definitions with one clear line and exit code 1', async () => {
    const cases: [string[], RegExp][] = [
      [['--file', join(dir, 'missing.yaml')], /^error: cannot read .*missing\.yaml/],
      [['--file', file('broken.json', '{"key": ')], /^error: .*broken\.json is not valid JSON/],
      [['--file', file('broken.yaml', 'key: [unclosed')], /^error: .*broken\.yaml is not valid YAML/],
      [['--file', file('bad.yaml', yamlDefinition.replace('type: integer', 'type: year'))], /^error: invalid object definition: fields\.2\.type: /],
    ];
    for (const [args, message] of cases) {
      const out = await gateway('objects', 'define', '--org', 'acme', ...args);
      expect(out.code, out.stdout).toBe(1);
      expect(out.stderr).toMatch(message);
      expect(out.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await gateway('objects', 'show', 'nothing', '--org', 'acme')).stderr).toBe('error: object nothing in org acme not found\n');
    expect((await gateway('objects', 'list', '--org', 'nobody')).stderr).toBe('error: org nobody not found\n');
  });
});
