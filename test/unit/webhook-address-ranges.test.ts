import { describe, expect, it } from 'vitest';
import { isPublicAddress, resolveTarget } from '../../src/modules/webhooks/address-guard.js';

/**
 * Every range the guard refuses, as IANA's IPv4 and IPv6 Special-Purpose Address Registries list the blocks
 * that are not globally reachable (and the forms that embed an IPv4 address): an address inside, refused,
 * and where the block has an edge a receiver could sit beside, the first address past it, allowed.
 */
const RANGES: Array<{ range: string; inside: string[]; outside: string[] }> = [
  { range: '0.0.0.0/8', inside: ['0.0.0.0', '0.255.255.255'], outside: ['1.0.0.0'] },
  { range: '10.0.0.0/8', inside: ['10.0.0.1', '10.255.255.255'], outside: ['11.0.0.0', '9.255.255.255'] },
  {
    range: '100.64.0.0/10',
    inside: ['100.64.0.1', '100.127.255.255'],
    outside: ['100.128.0.0', '100.63.255.255'],
  },
  { range: '127.0.0.0/8', inside: ['127.0.0.1', '127.255.255.254'], outside: ['128.0.0.1'] },
  { range: '169.254.0.0/16', inside: ['169.254.169.254'], outside: ['169.255.0.1', '169.253.255.255'] },
  {
    range: '172.16.0.0/12',
    inside: ['172.16.0.1', '172.31.255.255'],
    outside: ['172.32.0.1', '172.15.255.255'],
  },
  { range: '192.0.0.0/24', inside: ['192.0.0.8', '192.0.0.170'], outside: ['192.0.1.1'] },
  { range: '192.0.2.0/24', inside: ['192.0.2.1'], outside: ['192.0.3.1'] },
  { range: '192.88.99.0/24', inside: ['192.88.99.1'], outside: ['192.88.100.1'] },
  { range: '192.168.0.0/16', inside: ['192.168.1.1'], outside: ['192.169.0.1', '192.167.255.255'] },
  {
    range: '198.18.0.0/15',
    inside: ['198.18.0.1', '198.19.255.255'],
    outside: ['198.20.0.1', '198.17.255.255'],
  },
  { range: '198.51.100.0/24', inside: ['198.51.100.7'], outside: ['198.51.101.1'] },
  { range: '203.0.113.0/24', inside: ['203.0.113.7'], outside: ['203.0.114.1'] },
  { range: '224.0.0.0/4', inside: ['224.0.0.1', '239.255.255.255'], outside: ['223.255.255.254'] },
  { range: '240.0.0.0/4', inside: ['240.0.0.1', '255.255.255.255'], outside: [] },
  { range: '::/96', inside: ['::', '::1', '::127.0.0.1', '::a9fe:a9fe'], outside: ['::1:0:0:1'] },
  { range: '::ffff:0:0/96', inside: ['::ffff:127.0.0.1', '::ffff:8.8.8.8'], outside: ['::1:ffff:0:1'] },
  {
    range: '::ffff:0:0:0/96',
    inside: ['::ffff:0:7f00:1', '::ffff:0:808:808'],
    outside: ['::fffe:0:808:808'],
  },
  { range: '64:ff9b::/96', inside: ['64:ff9b::7f00:1', '64:ff9b::808:808'], outside: ['64:ff9b::1:0:0'] },
  { range: '64:ff9b:1::/48', inside: ['64:ff9b:1::7f00:1'], outside: ['64:ff9b:2::1'] },
  { range: '100::/64', inside: ['100::1'], outside: ['100:0:0:2::1'] },
  { range: '100:0:0:1::/64', inside: ['100:0:0:1::1'], outside: [] },
  {
    range: '2001::/23',
    inside: ['2001::1', '2001:0:a9fe:a9fe::', '2001:2::1', '2001:10::1', '2001:1ff::1'],
    outside: ['2001:200::1'],
  },
  { range: '2001:db8::/32', inside: ['2001:db8::1'], outside: ['2001:db9::1'] },
  {
    range: '2002::/16',
    inside: ['2002:a9fe:a9fe::', '2002:7f00:1::1'],
    outside: ['2003::1', '2001:ffff::1'],
  },
  { range: '3fff::/20', inside: ['3fff::1', '3fff:fff::1'], outside: ['3fff:1000::1'] },
  { range: '5f00::/16', inside: ['5f00::1'], outside: ['5f01::1'] },
  { range: 'fc00::/7', inside: ['fc00::1', 'fd00:ec2::254'], outside: ['fbff::1'] },
  { range: 'fe80::/10', inside: ['fe80::1', 'febf::1'], outside: [] },
  { range: 'fec0::/10', inside: ['fec0::1', 'feff::1'], outside: [] },
  { range: 'ff00::/8', inside: ['ff02::1'], outside: [] },
];

describe('webhook targets: special-purpose ranges', () => {
  describe.each(RANGES)('$range', ({ inside, outside }) => {
    it.each(inside)('refuses %s', (address) => {
      expect(isPublicAddress(address)).toBe(false);
    });
    if (outside.length > 0) {
      it.each(outside)('allows %s, just outside', (address) => {
        expect(isPublicAddress(address)).toBe(true);
      });
    }
  });

  it.each([
    '[::127.0.0.1]',
    '[::ffff:0:7f00:1]',
    '[::a9fe:a9fe]',
    '[64:ff9b:1::7f00:1]',
    '[2002:a9fe:a9fe::]',
    '[2001::1]',
  ])('refuses https://%s/ at resolution, as an attempt would', async (host) => {
    await expect(resolveTarget(new URL(`https://${host}/hooks`), false)).rejects.toThrow(
      /is a private, loopback or link-local address \(allowed only with WEBHOOK_ALLOW_PRIVATE=true\)$/,
    );
  });

  it('refuses a name whose resolution embeds a private IPv4 address in IPv6', async () => {
    const lookup = async () => [{ address: '64:ff9b:1::a00:5', family: 6 }];
    await expect(resolveTarget(new URL('https://hooks.example.com/'), false, lookup)).rejects.toThrow(
      /^hooks\.example\.com resolves to 64:ff9b:1::a00:5, which is a private/,
    );
  });
});
