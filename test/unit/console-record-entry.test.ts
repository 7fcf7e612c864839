import { describe, expect, it } from 'vitest';
import type { AccessEntry } from '../../src/account/console-users/staff-access.js';
import { recordedAddress } from '../../src/limits/client-address.js';
import { consoleRecordEntry } from '../../src/services/console-users.js';

const STAFF = '0193a000-0000-7000-8000-000000000002';
const USER = '0193a5c1-7d2e-7f00-8a11-3c4d5e6f7a8b';

function entry(action: string, subjectId: string | null, detail?: Record<string, unknown>): AccessEntry {
  return {
    actor: { kind: 'staff', id: STAFF },
    clientAddress: '203.0.113.9',
    subjectId,
    action,
    reason: 'why',
    outcome: 'ok',
    ...(detail === undefined ? {} : { detail }),
  };
}

describe('the console gate’s entries as access records', () => {
  it('keeps every field, the staff id as the actor', () => {
    expect(consoleRecordEntry(entry('users.disable', USER, { disabled_at: 'x' }))).toEqual({
      actor: { kind: 'staff', staffId: STAFF },
      clientAddress: '203.0.113.9',
      subjectId: USER,
      action: 'user.disable',
      reason: 'why',
      outcome: 'ok',
      detail: { disabled_at: 'x' },
    });
  });

  it.each([
    ['users.view', USER, undefined, 'user.view'],
    ['users.reveal', USER, { field: 'email' }, 'user.unmask.email'],
    ['users.reveal', USER, { permission: 'users.unmask' }, 'user.unmask'],
    ['users.search', null, undefined, 'users.search'],
    ['users.export', null, { rows: 3 }, 'users.export'],
  ] as const)('names %s (subject %s, detail %o) %s', (action, subject, detail, named) => {
    expect(consoleRecordEntry(entry(action, subject, detail)).action).toBe(named);
  });
});

describe('recordedAddress', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['010.000.000.001', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['[2001:DB8::5]:443', '2001:db8::5'],
    ['fe80::1%eth0', 'fe80::1'],
    ['not an address', 'unreadable-address'],
  ])('%s → %s', (ip, recorded) => {
    expect(recordedAddress(ip)).toBe(recorded);
  });
});
