import { isIPv6 } from 'node:net';

/**
 * The key every address that cannot be read as one shares. A trusted proxy writes what it saw, so this is
 * rare; sharing one counter (rather than one per spelling) means garbage can never be a way to a fresh limit.
 */
export const UNREADABLE_ADDRESS_KEY = 'unreadable-address';

/**
 * The part of a client's address a per-IP limit counts. One address has one key however it is written:
 * with a port (`10.0.0.1:1234`, `[2001:db8::5]:443`), in brackets, with a zone, with leading zeros
 * (`010.000.000.001` is read as the decimal a person means, 10.0.0.1, never as octal), as IPv4-mapped IPv6
 * (`::ffff:10.0.0.1`, `::ffff:a00:1`, what a dual-stack socket reports) or in any IPv6 spelling — otherwise
 * each spelling in `X-Forwarded-For` would be a fresh counter. IPv4 addresses count one by one. An IPv6
 * client usually holds a whole /64 (one subscriber's or one VM's allocation) and can pick any address in it,
 * so counting by /128 would give an attacker 2^64 fresh limits: IPv6 counts by its /64 prefix.
 */
export function clientAddressKey(ip: string): string {
  const address = withoutDecoration(ip);
  const ipv4 = dottedDecimal(address);
  if (ipv4 !== undefined) return ipv4;
  if (!isIPv6(address)) return UNREADABLE_ADDRESS_KEY;
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    const [high = 0, low = 0] = groups.slice(6).map((group) => Number.parseInt(group, 16));
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The bare address: brackets, a port and an IPv6 zone (`%eth0`) removed. */
function withoutDecoration(ip: string): string {
  const text = ip.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed?.[1]) return bracketed[1].replace(/%.*$/, '');
  const ipv4WithPort = /^([\d.]+):\d{1,5}$/.exec(text);
  if (ipv4WithPort?.[1]) return ipv4WithPort[1];
  return text.replace(/%.*$/, '');
}

/** An IPv4 address in its canonical form, leading zeros read as decimal; undefined when it is not one. */
function dottedDecimal(text: string): string | undefined {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)?.slice(1).map(Number);
  if (!parts || parts.some((part) => part > 255)) return undefined;
  return parts.join('.');
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

/**
 * A client's whole address as a record keeps it (the console's access records): one spelling for one
 * address like clientAddressKey — IPv4 and IPv4-mapped IPv6 as dotted decimal, brackets, ports and zones
 * removed — but an IPv6 address whole, since a record names the client, not the /64 a limit counts.
 */
export function recordedAddress(ip: string): string {
  const key = clientAddressKey(ip);
  if (key === UNREADABLE_ADDRESS_KEY || !key.endsWith('::/64')) return key;
  return withoutDecoration(ip).toLowerCase();
}
