/**
 * A PostgreSQL URL with several hosts, the way libpq takes it: `postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`.
 * node-postgres reads one host only, so the list is split off here and the rest of the URL goes to pg unchanged.
 */

export interface PostgresHost {
  host: string;
  port: number;
}

/** libpq's modes a gateway can use: it writes, so `read-only`, `standby` and `prefer-standby` would make no sense. */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'primary'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresTargets {
  hosts: PostgresHost[];
  /** Which host may serve the pool: with several hosts `read-write` unless the URL says otherwise (docs/decisions.md). */
  targetSessionAttrs: TargetSessionAttrs;
  /** libpq's connect_timeout (seconds in the URL), in ms; undefined when absent. */
  connectTimeoutMs: number | undefined;
  /** The URL with the first host only and without the parameters pg does not know, for everything else pg reads from it. */
  url: string;
}

const DEFAULT_PORT = 5432;
/** scheme, userinfo@ (up to the last @ before the path), host list, the rest (path, query). */
const URL_PARTS = /^(postgres(?:ql)?:\/\/)(?:([^/?#]*)@)?([^/?#]*)(.*)$/s;

/** Read here, not by pg. */
const OURS = new Set(['target_session_attrs', 'connect_timeout']);

export class PostgresUrlError extends Error {}

function parseHost(part: string): PostgresHost {
  const match = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d*))?$/.exec(part);
  if (match === null) throw new PostgresUrlError(`cannot read host "${part}"`);
  const host = (match[1] ?? '').replace(/^\[(.+)\]$/, '$1');
  const port = match[2] ? Number(match[2]) : DEFAULT_PORT;
  if (host === '') throw new PostgresUrlError('a host in the list is empty');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new PostgresUrlError(`port of ${host} must be 1-65535`);
  return { host, port };
}

/** Splits a postgres:// URL into its hosts and a one-host URL for pg; throws PostgresUrlError with a short reason. */
export function parsePostgresTargets(url: string): PostgresTargets {
  const parts = URL_PARTS.exec(url);
  if (parts === null) throw new PostgresUrlError('must start with postgres:// or postgresql://');
  const [, scheme = '', userinfo, hostList = '', rest = ''] = parts;
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const params = new URLSearchParams(queryAt === -1 ? '' : rest.slice(queryAt + 1));

  const hosts = hostList === '' ? [] : hostList.split(',').map(parseHost);
  const attrs = params.get('target_session_attrs') ?? (hosts.length > 1 ? 'read-write' : 'any');
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new PostgresUrlError(`target_session_attrs must be one of ${TARGET_SESSION_ATTRS.join(', ')}`);
  }
  const timeout = params.get('connect_timeout');
  if (timeout !== null && !/^\d+$/.test(timeout)) throw new PostgresUrlError('connect_timeout must be whole seconds');

  const first = hosts[0];
  const hostPart = first === undefined ? '' : `${first.host.includes(':') ? `[${first.host}]` : first.host}:${first.port}`;
  // The other parameters as written (re-encoding could change what pg decodes).
  const query = (queryAt === -1 ? '' : rest.slice(queryAt + 1))
    .split('&')
    .filter((pair) => pair !== '' && !OURS.has(decodeURIComponent(pair.split('=')[0] ?? '')))
    .join('&');
  return {
    hosts,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    // libpq: 0 or absent waits indefinitely; a timeout under 2 s is raised to 2 s.
    connectTimeoutMs: timeout === null || timeout === '0' ? undefined : Math.max(2, Number(timeout)) * 1000,
    url: `${scheme}${userinfo === undefined ? '' : `${userinfo}@`}${hostPart}${path}${query === '' ? '' : `?${query}`}`,
  };
}
