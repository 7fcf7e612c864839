import { describe, expect, it } from 'vitest';
import { parseConsole } from '../../src/config/console.js';
import type { StaffSignInDeps } from '../../src/modules/staff/sign-in.js';
import { StaffSignIn } from '../../src/modules/staff/sign-in.js';

/** Only the network check is asked of it: the other parts are never reached. */
function admitting(networks: string): StaffSignIn {
  const { allowedNetworks } = parseConsole({ CONSOLE_ALLOWED_NETWORKS: networks });
  return new StaffSignIn({ allowedNetworks } as StaffSignInDeps);
}

describe('CONSOLE_ALLOWED_NETWORKS', () => {
  it('admits an address inside a network however it is written, and refuses one outside or unreadable', () => {
    const signIn = admitting('10.0.0.0/8,2001:db8::/32');
    for (const ip of [
      '10.1.2.3',
      '::ffff:10.1.2.3',
      '[2001:db8::5]:443',
      '2001:DB8:0:0::9',
      '010.000.000.001',
    ]) {
      expect(() => signIn.admitAddress(ip), ip).not.toThrow();
    }
    for (const ip of ['11.1.2.3', '::ffff:11.1.2.3', '2001:db9::1', 'garbage', '', '::1']) {
      expect(() => signIn.admitAddress(ip), ip).toThrow('Staff may not sign in from this network.');
    }
  });

  it('admits every address when unset', () => {
    const signIn = new StaffSignIn({ allowedNetworks: undefined } as StaffSignInDeps);
    expect(() => signIn.admitAddress('203.0.113.9')).not.toThrow();
  });
});
