import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TooManyRequestsError } from '../../src/errors.js';
import type { RateCounter } from '../../src/limits/rate-counter.js';
import { AddressCap } from '../../src/mail/address-cap.js';

/** Both counters, writing down each hit; `full` refuses every hit with `refusal`. */
function cap(full?: { counter: 'address' | 'alerts'; refusal: Error }) {
  const hits: string[] = [];
  const counter = (name: 'address' | 'alerts'): RateCounter => ({
    consume: async (key) => {
      hits.push(`${name} ${key}`);
      if (full?.counter === name) throw full.refusal;
    },
    refund: async () => {},
    reset: async () => {},
  });
  return { hits, cap: new AddressCap({ address: counter('address'), alerts: counter('alerts') }) };
}

const keyOf = (address: string) => createHash('sha256').update(`mail:${address}`).digest('base64url');

afterEach(() => {
  vi.useRealTimers();
});

describe('AddressCap', () => {
  it('never counts a reset link, a consent reminder or a summary', async () => {
    const { cap: addressCap, hits } = cap({ counter: 'address', refusal: new TooManyRequestsError(60) });
    for (const kind of ['password_reset', 'consent_reconfirm', 'mail_summary']) {
      expect(await addressCap.admit('mina@example.com', kind, 'u1')).toBeUndefined();
    }
    expect(hits).toEqual([]);
  });

  it('counts every other mail on its address, lower-cased and hashed', async () => {
    const { cap: addressCap, hits } = cap();
    expect(await addressCap.admit('Mina@Example.COM', 'email_change')).toBeUndefined();
    expect(await addressCap.admit('mina@example.com', 'guardian_request', 'u1')).toBeUndefined();
    expect(hits).toEqual([`address ${keyOf('mina@example.com')}`, `address ${keyOf('mina@example.com')}`]);
  });

  it('counts an alert to the account’s own address per account and kind, never on the address', async () => {
    const { cap: addressCap, hits } = cap();
    await addressCap.admit('mina@example.com', 'alert_password_changed', 'u1');
    await addressCap.admit('mina@example.com', 'alert_passkey_added', 'u1');
    // An alert's kind to an address that is not the account's own, and a kind merely containing "alert_".
    await addressCap.admit('mina@example.com', 'alert_password_changed');
    await addressCap.admit('mina@example.com', 'new_alert_x', 'u1');
    expect(hits).toEqual([
      'alerts alert:u1:alert_password_changed',
      'alerts alert:u1:alert_passkey_added',
      `address ${keyOf('mina@example.com')}`,
      `address ${keyOf('mina@example.com')}`,
    ]);
  });

  it('answers when the window ends for a mail over its cap', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T12:00:00.000Z'));
    const { cap: addressCap } = cap({ counter: 'alerts', refusal: new TooManyRequestsError(90) });
    expect(await addressCap.admit('mina@example.com', 'alert_password_changed', 'u1')).toEqual(
      new Date('2026-11-28T12:01:30.000Z'),
    );
  });

  it('throws a failure of the store that is no refusal', async () => {
    const down = new Error('store down');
    const { cap: addressCap } = cap({ counter: 'address', refusal: down });
    await expect(addressCap.admit('mina@example.com', 'email_change')).rejects.toBe(down);
  });
});
