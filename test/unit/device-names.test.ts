import { describe, expect, it } from 'vitest';
import { describeDevice } from '../../src/modules/security-events/device.js';

describe('device names from user agents', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'Chrome on macOS',
      'chrome|macos|desktop',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
      'Safari on iPhone',
      'safari|iphone|mobile',
    ],
    [
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
      'Chrome on Android',
      'chrome|android|mobile',
    ],
    ['Accounts/3.2.0 (iPhone; iOS 18.1)', 'Accounts on iPhone', 'accounts|iphone|mobile'],
    ['Accounts/3.2.0 (Android 14; Pixel 8)', 'Accounts on Android', 'accounts|android|tablet'],
    ['curl/8.4.0', 'curl', 'curl||'],
  ])('%s → %s', (agent, name, key) => {
    expect(describeDevice(agent)).toEqual({ name, key });
  });

  it('names a missing or unreadable user agent an unknown device, keyed apart', () => {
    expect(describeDevice(undefined)).toEqual({ name: 'Unknown device', key: 'none' });
    expect(describeDevice('   ')).toEqual({ name: 'Unknown device', key: 'none' });
    expect(describeDevice('???')).toEqual({ name: 'Unknown device', key: 'ua:???' });
  });

  it('reads at most 512 characters of a hostile user agent', () => {
    const huge = `x${'y'.repeat(100_000)}`;
    expect(describeDevice(huge).key.length).toBeLessThanOrEqual(515);
  });
});
