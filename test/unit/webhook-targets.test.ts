import { describe, expect, it } from 'vitest';
import { parseRetrySchedule, parseWebhooks } from '../../src/config/webhooks.js';
import { checkTargetUrl, isPublicAddress, resolveTarget } from '../../src/modules/webhooks/address-guard.js';
import { signatureHeaders } from '../../src/modules/webhooks/sender.js';
import { configError } from '../helpers/config.js';

describe('webhook targets', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('takes https only, and http with WEBHOOK_ALLOW_PRIVATE; never credentials in the URL', () => {
    expect(() => checkTargetUrl('http://hooks.example.com/', false)).toThrow(
      /http is not allowed: use https/,
    );
    expect(checkTargetUrl('http://hooks.example.com/', true).protocol).toBe('http:');
    expect(() => checkTargetUrl('ftp://hooks.example.com/', true)).toThrow(/ftp is not allowed/);
    expect(() => checkTargetUrl('https://user:pw@hooks.example.com/', false)).toThrow(/credentials/);
    expect(() => checkTargetUrl('hooks', false)).toThrow(/not a URL/);
  });

  it('refuses a name that resolves to any private address, after resolution', async () => {
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const url = new URL('https://hooks.example.com/');
    await expect(resolveTarget(url, false, lookup)).rejects.toThrow(
      'hooks.example.com resolves to 10.0.0.5, which is a private, loopback or link-local address (allowed only with WEBHOOK_ALLOW_PRIVATE=true)',
    );
    await expect(resolveTarget(url, true, lookup)).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(resolveTarget(new URL('https://[::1]/'), false, lookup)).rejects.toThrow(
      /^::1 is a private/,
    );
  });

  it('signs with every secret, space-separated', () => {
    const delivery = {
      url: 'https://hooks.example.com/',
      eventId: 'msg_1',
      body: '{}',
      secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    };
    const headers = signatureHeaders(delivery, new Date(1_614_265_330_000));
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe('1614265330');
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
  });
});

describe('WEBHOOK_RETRY_SCHEDULE', () => {
  it('defaults to 5s,5m,30m,2h,5h,10h,10h', () => {
    expect(parseWebhooks({}).retryScheduleMs).toEqual([
      5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('takes waits with units', () => {
    expect(parseRetrySchedule('1s,2s,5s')).toEqual([1000, 2000, 5000]);
    expect(parseRetrySchedule('500ms, 1m')).toEqual([500, 60_000]);
  });

  it.each(['', '5', '1s,,2s', '0s', '8d', 'soon'])('refuses "%s"', (value) => {
    expect(configError({ WEBHOOK_RETRY_SCHEDULE: value === '' ? ',' : value }).message).toMatch(
      /^Invalid configuration: WEBHOOK_RETRY_SCHEDULE must be 1 to 20 comma-separated waits/,
    );
  });
});
