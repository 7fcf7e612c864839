import { describe, expect, it } from 'vitest';

/**
 * Imported by each test rather than at the top: the module builds its address lists as it loads, and a list
 * it cannot build must fail the tests, not only the file's import (which a mutation run counts as no test).
 */
const guard = () => import('../../src/modules/webhooks/address-guard.js');

/** What each branch of the webhook target guard decides (the address lists: webhook-targets.test.ts). */
describe('the webhook target guard', () => {
  const url = new URL('https://hooks.example.com/');

  it('takes https with WEBHOOK_ALLOW_PRIVATE too', async () => {
    const { checkTargetUrl } = await guard();
    expect(checkTargetUrl('https://hooks.example.com/', true).protocol).toBe('https:');
  });

  it('refuses a user name alone, and a password alone, in the URL', async () => {
    const { checkTargetUrl } = await guard();
    expect(() => checkTargetUrl('https://user@hooks.example.com/', false)).toThrow(
      'a webhook URL must not hold credentials',
    );
    expect(() => checkTargetUrl('https://:secret@hooks.example.com/', true)).toThrow(
      'a webhook URL must not hold credentials',
    );
  });

  it('connects to the first address of a name whose addresses are all public', async () => {
    const { resolveTarget } = await guard();
    const lookup = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '1.1.1.1', family: 4 },
    ];
    await expect(resolveTarget(url, false, lookup)).resolves.toEqual({ address: '93.184.216.34', family: 4 });
  });

  it('keeps the family of an IPv6 address, of a name and of a literal', async () => {
    const { resolveTarget } = await guard();
    const lookup = async () => [{ address: '2606:4700:4700::1111', family: 6 }];
    await expect(resolveTarget(url, false, lookup)).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
    await expect(resolveTarget(new URL('https://[2606:4700:4700::1111]/'), false)).resolves.toEqual({
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('refuses a name that resolves to nothing, or cannot be resolved', async () => {
    const { resolveTarget } = await guard();
    await expect(resolveTarget(url, true, async () => [])).rejects.toThrow(
      /^cannot resolve hooks\.example\.com$/,
    );
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    await expect(
      resolveTarget(url, true, async () => {
        throw notFound;
      }),
    ).rejects.toThrow(/^cannot resolve hooks\.example\.com: ENOTFOUND$/);
    await expect(
      resolveTarget(url, true, async () => {
        throw new Error('no code');
      }),
    ).rejects.toThrow(/^cannot resolve hooks\.example\.com: error$/);
  });

  it("asks the system's resolver for every address of a name by default", async () => {
    const { resolveTarget } = await guard();
    // localhost comes from the hosts file: no network is needed.
    const target = await resolveTarget(new URL('https://localhost/'), true);
    expect(['127.0.0.1', '::1']).toContain(target.address);
    await expect(resolveTarget(new URL('https://localhost/'), false)).rejects.toThrow(
      /^localhost resolves to (127\.0\.0\.1|::1), which is a private, loopback or link-local address/,
    );
  });
});
