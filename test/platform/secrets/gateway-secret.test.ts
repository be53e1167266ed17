import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.js';
import { SECRET_FILE, resolveGatewaySecret } from '../../../src/platform/secrets/gateway-secret.js';

const run = promisify(execFile);

describe('resolveGatewaySecret', () => {
  let dir: string;
  let file: string;
  const sqliteIn = (folder: string) => ({ DATABASE_URL: `sqlite:${join(folder, 'gateway.sqlite')}` });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-secret-'));
    file = join(dir, 'data', SECRET_FILE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates the secret beside the SQLite file with mode 0600, and reuses it on the next start', () => {
    const first = resolveGatewaySecret(sqliteIn(join(dir, 'data')));
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(resolveGatewaySecret(sqliteIn(join(dir, 'data')))).toBe(first);
    expect(readdirSync(join(dir, 'data'))).toEqual([SECRET_FILE]);
  });

  it('prefers GATEWAY_SECRET and writes nothing; an in-memory database gets a secret of its own', () => {
    const secret = 'x'.repeat(40);
    expect(resolveGatewaySecret({ ...sqliteIn(join(dir, 'data')), GATEWAY_SECRET: secret })).toBe(secret);
    expect(existsSync(file)).toBe(false);
    const memory = resolveGatewaySecret({ DATABASE_URL: 'sqlite::memory:' });
    expect(memory).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(resolveGatewaySecret({ DATABASE_URL: 'sqlite::memory:' })).not.toBe(memory);
    expect(() => resolveGatewaySecret({ DATABASE_URL: 'postgres://db.example/gw' })).toThrow('GATEWAY_SECRET is required with PostgreSQL');
  });

  it('refuses a secret file others can read, and one too short, with one clear line', () => {
    resolveGatewaySecret(sqliteIn(join(dir, 'data')));
    chmodSync(file, 0o644);
    expect(() => resolveGatewaySecret(sqliteIn(join(dir, 'data')))).toThrow(ConfigError);
    expect(() => resolveGatewaySecret(sqliteIn(join(dir, 'data')))).toThrow(`${file} is open to group or others (mode 0644): chmod 600 it, or set GATEWAY_SECRET`);
    chmodSync(file, 0o640);
    expect(() => resolveGatewaySecret(sqliteIn(join(dir, 'data')))).toThrow(/open to group or others \(mode 0640\)/);
    writeFileSync(file, 'too-short\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    expect(() => resolveGatewaySecret(sqliteIn(join(dir, 'data')))).toThrow(`${file} holds fewer than 32 characters`);
  });

  it('gives processes starting together one secret', async () => {
    // The compiled module (`npm test` builds first), so each process creates the file on its own.
    const script = `import { resolveGatewaySecret } from ${JSON.stringify(join(process.cwd(), 'dist/src/platform/secrets/gateway-secret.js'))};
      process.stdout.write(resolveGatewaySecret({ DATABASE_URL: process.argv[1] }));`;
    const url = sqliteIn(join(dir, 'data')).DATABASE_URL;
    const outputs = await Promise.all(Array.from({ length: 6 }, () => run(process.execPath, ['--input-type=module', '-e', script, url])));
    expect(new Set(outputs.map((o) => o.stdout)).size).toBe(1);
    expect(outputs[0]?.stdout).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readdirSync(join(dir, 'data'))).toEqual([SECRET_FILE]);
  });
});
