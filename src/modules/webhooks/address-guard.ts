import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { TargetRefusedError } from './errors.js';

/*
 * Webhooks must not become a way into the service's own network (SSRF): a target is checked after DNS
 * resolution, at every delivery (a name may point elsewhere tomorrow), and the request connects to the very
 * address that was checked, so a second lookup cannot swap it (DNS rebinding).
 */

/** Ranges no webhook may reach unless WEBHOOK_ALLOW_PRIVATE is set. */
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the cloud metadata service (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (fd00:ec2::254 is a metadata service)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}

/**
 * IPv4-mapped IPv6 addresses, refused whole: they reach an IPv4 address past the IPv4 list. Kept apart
 * because a BlockList applies an IPv6 rule over the mapped range to plain IPv4 addresses too.
 */
const MAPPED = new BlockList();
MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Whether `address` (an IP literal) is one a webhook may reach without WEBHOOK_ALLOW_PRIVATE. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && MAPPED.check(address, 'ipv6')) return false;
  return !REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A target's URL checked for its form: https (or http with the flag), no credentials in it. */
export function checkTargetUrl(value: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TargetRefusedError(`not a URL: ${value}`);
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new TargetRefusedError(
      `${url.protocol.slice(0, -1)} is not allowed: use https (http only with WEBHOOK_ALLOW_PRIVATE=true)`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new TargetRefusedError('a webhook URL must not hold credentials');
  }
  return url;
}

/** An address a target's host resolved to, checked. */
export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

export type HostLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: HostLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Resolves `url`'s host and returns the address to connect to. Every address the name resolves to must be
 * allowed, not just the first: otherwise a name with one public and one private address would reach the
 * private one whenever the resolver ordered it first.
 */
export async function resolveTarget(
  url: URL,
  allowPrivate: boolean,
  lookup: HostLookup = systemLookup,
): Promise<ResolvedTarget> {
  // The URL keeps an IPv6 literal's brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch (error) {
      throw new TargetRefusedError(
        `cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }
  const first = addresses[0];
  if (first === undefined) throw new TargetRefusedError(`cannot resolve ${host}`);
  if (!allowPrivate) {
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused !== undefined) {
      const what = refused.address === host ? host : `${host} resolves to ${refused.address}, which`;
      throw new TargetRefusedError(
        `${what} is a private, loopback or link-local address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)`,
      );
    }
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
