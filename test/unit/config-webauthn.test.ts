import { describe, expect, it } from 'vitest';
import { passkeysWarning } from '../../src/config/webauthn.js';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

const APK = `android:apk-key-hash:${'A'.repeat(42)}Q`;

describe('passkey (WebAuthn) configuration', () => {
  it('defaults to the host and origin of PUBLIC_URL, localhost on a default install', () => {
    expect(loadConfig({ PORT: '9090' }).mail.publicUrl).toBe('http://localhost:9090');
    expect(loadConfig({ PORT: '9090' }).webauthn).toEqual({
      rpId: 'localhost',
      rpName: 'accounts',
      origins: ['http://localhost:9090'],
      passkeysAvailable: true,
    });
    expect(passkeysWarning(loadConfig({}).webauthn)).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://accounts.example.com/base/' }).webauthn).toEqual({
      rpId: 'accounts.example.com',
      rpName: 'accounts',
      origins: ['https://accounts.example.com'],
      passkeysAvailable: true,
    });
  });

  it.each([
    ['http://127.0.0.1:8080', '127.0.0.1'],
    ['http://10.1.2.3', '10.1.2.3'],
    ['http://[::1]:8080', '::1'],
    ['https://[2001:db8::7]', '2001:db8::7'],
  ])('turns passkeys off, with a one-line warning, when PUBLIC_URL is the IP address %s', (url, host) => {
    const { webauthn } = loadConfig({ PUBLIC_URL: url });
    expect(webauthn).toMatchObject({ rpId: host, passkeysAvailable: false });
    const warning = passkeysWarning(webauthn);
    expect(warning).toBe(
      `passkeys are off: PUBLIC_URL's host ${host} is an IP address, and browsers make passkeys only for a ` +
        'domain name; set PUBLIC_URL to one (http://localhost:PORT on this machine)',
    );
    expect(warning).not.toContain('\n');
  });

  it.each(['127.0.0.1', '::1', '[::1]', '192.168.0.10', '2001:db8::7', '0.0.0.0'])(
    'refuses WEBAUTHN_RP_ID=%s at start, in one line saying passkeys need a domain name',
    (value) => {
      expect(configError({ WEBAUTHN_RP_ID: value }).message).toBe(
        `Invalid configuration: WEBAUTHN_RP_ID is an IP address ("${value}"), but browsers make passkeys only ` +
          'for a domain name: set a domain such as localhost or example.com, and serve the pages there',
      );
    },
  );

  it('takes an RP ID above the origins, and Android apps beside them', () => {
    const config = loadConfig({
      PUBLIC_URL: 'https://accounts.example.com',
      WEBAUTHN_RP_ID: 'example.com',
      WEBAUTHN_RP_NAME: 'Example',
      WEBAUTHN_ORIGINS: ` https://accounts.example.com, https://example.com:8443 ,${APK},${APK}`,
    });
    expect(config.webauthn).toEqual({
      rpId: 'example.com',
      rpName: 'Example',
      origins: ['https://accounts.example.com', 'https://example.com:8443', APK],
      passkeysAvailable: true,
    });
  });

  it('refuses what no authenticator would accept, naming the variable', () => {
    for (const [variable, value] of [
      ['WEBAUTHN_RP_ID', 'https://example.com'],
      ['WEBAUTHN_RP_ID', 'Example.com'],
      ['WEBAUTHN_RP_ID', 'example.com:443'],
      ['WEBAUTHN_RP_NAME', 'x'.repeat(65)],
      ['WEBAUTHN_ORIGINS', 'https://accounts.example.com/path'],
      ['WEBAUTHN_ORIGINS', 'ftp://example.com'],
      ['WEBAUTHN_ORIGINS', 'android:apk-key-hash:short'],
      ['WEBAUTHN_ORIGINS', 'https://evil.example.net'],
      ['WEBAUTHN_ORIGINS', ','],
    ] as const) {
      const env = {
        PUBLIC_URL: 'https://accounts.example.com',
        WEBAUTHN_RP_ID: 'example.com',
        [variable]: value,
      };
      expect(configError(env).message, `${variable}=${value}`).toMatch(
        new RegExp(`^Invalid configuration: ${variable} `),
      );
    }
  });
});
