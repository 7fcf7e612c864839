import { isIPv4, isIPv6 } from 'node:net';

/**
 * The part of a client's address a per-IP limit counts. IPv4 addresses count one by one. An IPv6 client
 * usually holds a whole /64 (one subscriber's or one VM's allocation) and can pick any address in it, so
 * counting by /128 would give an attacker 2^64 fresh limits: IPv6 counts by its /64 prefix. IPv4-mapped IPv6
 * (`::ffff:192.0.2.1`, what a dual-stack socket reports) counts as the IPv4 address it carries.
 */
export function clientAddressKey(ip: string): string {
  const address = ip.replace(/%.*$/, '');
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] && isIPv4(mapped[1])) return mapped[1];
  const groups = expandIPv6(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, without leading zeros (`::` expanded, IPv4 tail split). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const ipv4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (ipv4Tail) {
    const [a, b, c, d] = ipv4Tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, ipv4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = tail === undefined ? headGroups : [...headGroups, ...zeros, ...tailGroups];
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}
