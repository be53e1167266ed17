import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Config, ConfigError, StartupError, isPostgresUrl } from '../../config.js';

/** The generated secret's file name, in the folder of the SQLite database. */
export const SECRET_FILE = 'gateway.secret';
const MIN_LENGTH = 32;

function generate(): string {
  return randomBytes(32).toString('base64url');
}

function errorCode(err: unknown): unknown {
  return err instanceof Error && 'code' in err ? err.code : undefined;
}

/**
 * Publishes a new secret file only if none exists: written whole under a temporary name, then hard-linked into place
 * (`link` fails if the name exists), so processes starting together all read the one complete file that won.
 */
function createIfAbsent(path: string): void {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, `${generate()}\n`, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(tmp, path);
  } catch (err) {
    if (errorCode(err) !== 'EEXIST') throw err;
  } finally {
    unlinkSync(tmp);
  }
}

function readSecretFile(path: string): string {
  const mode = statSync(path).mode & 0o777;
  // Windows reports no Unix permission bits, so the check would refuse every file there.
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new ConfigError(`invalid configuration: ${path} is open to group or others (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 it, or set GATEWAY_SECRET`);
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < MIN_LENGTH) throw new ConfigError(`invalid configuration: ${path} holds fewer than ${MIN_LENGTH} characters: restore it, or set GATEWAY_SECRET`);
  return secret;
}

/**
 * GATEWAY_SECRET, or on the embedded default (SQLite) the secret generated into `<folder of the database>/gateway.secret`
 * (mode 0600) on first start and read on every later one; an in-memory database gets one for the process.
 */
export function resolveGatewaySecret(config: Pick<Config, 'DATABASE_URL' | 'GATEWAY_SECRET'>): string {
  if (config.GATEWAY_SECRET) return config.GATEWAY_SECRET;
  // loadConfig refuses this already; repeated for configs built by hand.
  if (isPostgresUrl(config.DATABASE_URL)) throw new ConfigError('invalid configuration: GATEWAY_SECRET is required with PostgreSQL (at least 32 characters)');
  const file = config.DATABASE_URL.slice('sqlite:'.length);
  if (file === ':memory:') return generate();
  const path = join(dirname(file), SECRET_FILE);
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (!existsSync(path)) createIfAbsent(path);
    return readSecretFile(path);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new StartupError(`cannot use the generated secret ${path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
