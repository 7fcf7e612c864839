import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { TargetRefusedError } from './errors.js';

/*
 * Webhooks must not become a way into the service's own network (SSRF): a target is checked after DNS
 * resolution, at every delivery (a name may point elsewhere tomorrow), and the request connects to the very
 * address that was checked, so a second lookup cannot swap it (DNS rebinding).
 */

/*
 * The ranges no webhook may reach unless WEBHOOK_ALLOW_PRIVATE is set: every block that IANA's IPv4 and IPv6
 * Special-Purpose Address Registries (iana-ipv4-special-registry, iana-ipv6-special-registry) mark as not
 * globally reachable, and a few more besides (multicast, the deprecated blocks, and every IPv6 form that
 * embeds an IPv4 address, which would reach that address past the IPv4 list). A receiver lives on a public
 * unicast address, so refusing a whole block where the registry excepts an anycast address inside it costs
 * nothing. Each family has its own list, checked only with addresses of its family: a BlockList applies an
 * IPv6 rule over the IPv4-mapped range to plain IPv4 addresses too, and the other way round.
 */
const REFUSED_IPV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", the unspecified address (RFC 791)
  ['10.0.0.0', 8], // private use (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata service (169.254.169.254)
  ['172.16.0.0', 12], // private use
  ['192.0.0.0', 24], // IETF protocol assignments: DS-Lite, dummy, NAT64 discovery (RFC 6890)
  ['192.0.2.0', 24], // documentation, TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast, deprecated (RFC 7526): reaches 2002::/16
  ['192.168.0.0', 16], // private use
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation, TEST-NET-2
  ['203.0.113.0', 24], // documentation, TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast 255.255.255.255
] as const) {
  REFUSED_IPV4.addSubnet(network, prefix, 'ipv4');
}
const REFUSED_IPV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96], // IPv4-compatible, deprecated (RFC 4291), with the unspecified :: and the loopback ::1
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated, SIIT (RFC 2765)
  ['64:ff9b::', 96], // IPv4/IPv6 translation, NAT64 (RFC 6052): a gateway reaches the embedded IPv4 address
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['100:0:0:1::', 64], // dummy prefix (RFC 9780)
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID (RFC 2928)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (RFC 3056): reaches the embedded IPv4 address through a relay
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local (fd00:ec2::254 is a metadata service)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local, deprecated (RFC 3879)
  ['ff00::', 8], // multicast
] as const) {
  REFUSED_IPV6.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IP literal) is one a webhook may reach without WEBHOOK_ALLOW_PRIVATE. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !REFUSED_IPV4.check(address, 'ipv4');
  if (family === 6) return !REFUSED_IPV6.check(address, 'ipv6');
  return false;
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
