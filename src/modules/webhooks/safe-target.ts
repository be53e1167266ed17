import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where the gateway may POST an org's events: https only, to public addresses. Hosts the operator lists
 * (WEBHOOK_ALLOWED_HOSTS: the tests' and the demo's loopback receivers) may use http and any address.
 */

// Addresses a receiver must never be: private, loopback, link-local (cloud metadata 169.254.169.254), CGNAT, unspecified, multicast.
const refused = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  refused.addSubnet(net, prefix, 'ipv6');
}

/** Whether an address is one a webhook may not reach (IPv4-mapped IPv6 is judged as its IPv4). */
export function isRefusedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return refused.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class UnsafeTarget extends Error {}

/** The URL's host without IPv6 brackets, lower case. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Every address a host name resolves to (the system resolver; a test gives one that never answers). */
export type ResolveAll = (host: string) => Promise<readonly { address: string; family: number }[]>;

const systemResolveAll: ResolveAll = (host) => lookup(host, { all: true, verbatim: true });

export class TargetPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowedHosts: readonly string[], private readonly resolveAll: ResolveAll = systemResolveAll) {
    this.allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  }

  /** Whether the operator allows this host over http and at any address. */
  allowsAnyAddress(host: string): boolean {
    return this.allowed.has(host.toLowerCase());
  }

  /**
   * A `lookup` for the HTTP client's sockets that refuses a name resolving to a refused address at connect time, so
   * an answer that changed since `resolve` (DNS rebinding) cannot slip through. IP literals never reach it: `resolve` judges them.
   */
  connectLookup(): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        const bad = this.allowsAnyAddress(hostname) ? undefined : addresses.find((a) => isRefusedAddress(a.address));
        const first = addresses[0];
        if (bad !== undefined || first === undefined) {
          return callback(Object.assign(new UnsafeTarget(`host ${hostname} resolves to ${bad?.address ?? 'nothing'}, refused`), { code: 'EWEBHOOKTARGET' }), '', 0);
        }
        // Node asks for every address when it races IPv4 against IPv6 (autoSelectFamily), for one otherwise.
        if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        return callback(null, first.address, first.family);
      });
    };
  }

  /** Why the URL's form is refused (scheme, credentials), or undefined; no DNS. */
  formProblem(raw: string): string | undefined {
    if (!URL.canParse(raw)) return 'url must be an absolute URL';
    const url = new URL(raw);
    if (url.username !== '' || url.password !== '') return 'url must not carry credentials';
    if (url.protocol === 'https:') return undefined;
    if (url.protocol === 'http:' && this.allowed.has(hostOf(url))) return undefined;
    return 'url must use https';
  }

  /**
   * The address to connect to: the host resolved now and every address it resolves to checked, so a name that
   * points at a private address (DNS rebinding) is refused. Throws UnsafeTarget.
   */
  async resolve(raw: string): Promise<{ url: URL; address: string; family: number }> {
    const problem = this.formProblem(raw);
    if (problem !== undefined) throw new UnsafeTarget(problem);
    const url = new URL(raw);
    const host = hostOf(url);
    const literal = isIP(host);
    const addresses = literal !== 0 ? [{ address: host, family: literal }] : await this.resolveAll(host).catch((err: unknown) => {
      throw new UnsafeTarget(`host ${host} does not resolve: ${err instanceof Error ? err.message : String(err)}`);
    });
    const first = addresses[0];
    if (first === undefined) throw new UnsafeTarget(`host ${host} does not resolve`);
    if (!this.allowed.has(host)) {
      const bad = addresses.find((a) => isRefusedAddress(a.address));
      if (bad !== undefined) throw new UnsafeTarget(`host ${host} resolves to ${bad.address}, a private, loopback, link-local or metadata address`);
    }
    return { url, address: first.address, family: first.family };
  }
}
