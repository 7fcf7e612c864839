import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configError } from '../helpers/config.js';

const APK = `android:apk-key-hash:${'A'.repeat(42)}Q`;

describe('passkey (WebAuthn) configuration', () => {
  it('defaults to the host and origin of PUBLIC_URL', () => {
    expect(loadConfig({ PORT: '9090' }).webauthn).toEqual({
      rpId: '127.0.0.1',
      rpName: 'accounts',
      origins: ['http://127.0.0.1:9090'],
    });
    expect(loadConfig({ PUBLIC_URL: 'https://accounts.example.com/base/' }).webauthn).toEqual({
      rpId: 'accounts.example.com',
      rpName: 'accounts',
      origins: ['https://accounts.example.com'],
    });
  });

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
