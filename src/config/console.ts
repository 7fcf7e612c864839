import { isIP } from 'node:net';
import { ConfigError, type Env, raw } from './env.js';
import { duration } from './mail.js';

/** One network staff may reach the admin API from. */
export interface AllowedNetwork {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** The operator console and its admin API (docs/console.md). */
export interface ConsoleConfig {
  /** CONSOLE_LOCKOUT: how long five wrong passwords or codes in a row lock a staff account. */
  lockoutMs: number;
  /** CONSOLE_IDLE_TIMEOUT: a staff session unused this long has ended. */
  idleTimeoutMs: number;
  /** CONSOLE_ALLOWED_NETWORKS: where staff may use the console from; undefined = anywhere. */
  allowedNetworks: AllowedNetwork[] | undefined;
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a bare address (a network of one). */
function network(text: string): AllowedNetwork {
  const [address = '', prefixText, ...rest] = text.split('/');
  const version = isIP(address);
  const bits = version === 6 ? 128 : 32;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (version === 0 || rest.length > 0 || !/^\d{1,3}$/.test(prefixText ?? '0') || prefix > bits) {
    throw new ConfigError(
      'CONSOLE_ALLOWED_NETWORKS',
      `must be comma-separated CIDRs such as 10.0.0.0/8,2001:db8::/32 (got "${text}")`,
    );
  }
  return { address, prefix, family: version === 6 ? 'ipv6' : 'ipv4' };
}

export function parseConsole(env: Env): ConsoleConfig {
  const networks = raw(env, 'CONSOLE_ALLOWED_NETWORKS');
  return {
    lockoutMs: duration(env, 'CONSOLE_LOCKOUT', '30m', 60_000, 7 * 86_400_000),
    idleTimeoutMs: duration(env, 'CONSOLE_IDLE_TIMEOUT', '30m', 60_000, 12 * 3_600_000),
    allowedNetworks: networks?.split(',').map((part) => network(part.trim())),
  };
}
