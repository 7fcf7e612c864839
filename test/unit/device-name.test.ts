import { describe, expect, it } from 'vitest';
import { deviceName } from '../../src/lib/device-name.js';

describe('deviceName', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
      'Chrome 120 · macOS Catalina',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      'Safari 17 · iPhone · iOS 17.4',
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
      'Firefox 121 · Windows 10',
    ],
    ['AccountsApp/3.2 (iPhone; iOS 17.4)', 'AccountsApp 3 · iPhone · iOS'],
  ])('names %s', (userAgent, name) => {
    expect(deviceName(userAgent)).toBe(name);
  });

  it('is undefined for nothing, an unknown client and an absurdly long string', () => {
    expect(deviceName(null)).toBeUndefined();
    expect(deviceName('')).toBeUndefined();
    expect(deviceName('curl/8.5.0')).toBeUndefined();
    expect(deviceName(`Mozilla/5.0 ${'x'.repeat(600)} Chrome/120.0`)).toBeUndefined();
  });
});
