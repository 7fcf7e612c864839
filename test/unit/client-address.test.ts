import { describe, expect, it } from 'vitest';
import { clientAddressKey } from '../../src/limits/client-address.js';

describe('clientAddressKey', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:abcd::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['10.0.0.1:1234', '10.0.0.1'],
    ['010.000.000.001', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::ffff:a00:1', '10.0.0.1'],
    ['[::ffff:10.0.0.1]:80', '10.0.0.1'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['[2001:db8::5]', '2001:db8:0:0::/64'],
    ['[2001:db8::5]:443', '2001:db8:0:0::/64'],
    ['2001:DB8::5', '2001:db8:0:0::/64'],
    ['[fe80::1%eth0]:8080', 'fe80:0:0:0::/64'],
    ['not-an-address', 'unreadable-address'],
    ['256.0.0.1', 'unreadable-address'],
    ['1.2.3', 'unreadable-address'],
    ['', 'unreadable-address'],
  ])('%s counts as %s', (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key);
  });

  it('gives every spelling of one client the same key', () => {
    const spellings = ['10.0.0.1', '10.0.0.1:1234', '010.000.000.001', '::ffff:10.0.0.1', '[::ffff:a00:1]:9'];
    expect(new Set(spellings.map(clientAddressKey))).toEqual(new Set(['10.0.0.1']));
  });

  it('gives every address in one /64 the same key, and neighbouring /64s different ones', () => {
    expect(clientAddressKey('2001:db8:aa:bb::1')).toBe(clientAddressKey('2001:db8:aa:bb:ffff:1:2:3'));
    expect(clientAddressKey('2001:db8:aa:bb::1')).not.toBe(clientAddressKey('2001:db8:aa:bc::1'));
  });
});
