import { describe, expect, it } from 'vitest';
import { parseConsole } from '../../src/config/console.js';

const NETWORKS_ERROR = (value: string) =>
  `Invalid configuration: CONSOLE_ALLOWED_NETWORKS must be comma-separated CIDRs such as 10.0.0.0/8,2001:db8::/32 (got "${value}")`;

describe('console configuration', () => {
  it('defaults to a 30-minute lockout, a 30-minute idle timeout and any network', () => {
    expect(parseConsole({})).toEqual({
      lockoutMs: 1_800_000,
      idleTimeoutMs: 1_800_000,
      allowedNetworks: undefined,
    });
  });

  it('reads durations and networks, a bare address as a network of one', () => {
    const env = {
      CONSOLE_LOCKOUT: '2h',
      CONSOLE_IDLE_TIMEOUT: '15m',
      CONSOLE_ALLOWED_NETWORKS: '10.0.0.0/8, 192.0.2.7 ,2001:db8::/32',
    };
    expect(parseConsole(env)).toEqual({
      lockoutMs: 7_200_000,
      idleTimeoutMs: 900_000,
      allowedNetworks: [
        { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { address: '192.0.2.7', prefix: 32, family: 'ipv4' },
        { address: '2001:db8::', prefix: 32, family: 'ipv6' },
      ],
    });
  });

  it('refuses what is no network, and timeouts out of their range', () => {
    for (const value of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '2001:db8::/129', '10.0.0.0/x']) {
      expect(() => parseConsole({ CONSOLE_ALLOWED_NETWORKS: value })).toThrow(NETWORKS_ERROR(value));
    }
    expect(() => parseConsole({ CONSOLE_IDLE_TIMEOUT: '13h' })).toThrow(
      /^Invalid configuration: CONSOLE_IDLE_TIMEOUT must be a duration/,
    );
    expect(() => parseConsole({ CONSOLE_LOCKOUT: '10s' })).toThrow(
      /^Invalid configuration: CONSOLE_LOCKOUT must be a duration/,
    );
  });
});
