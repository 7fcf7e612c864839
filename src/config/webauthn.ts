import { isIP } from 'node:net';
import { ConfigError, type Env, raw } from './env.js';

/** The relying party of passkeys (WebAuthn): who the credentials are made for, and where they may be used. */
export interface WebAuthnConfig {
  /** WEBAUTHN_RP_ID: the domain the credentials are scoped to (a passkey made for it works on it and below). */
  rpId: string;
  /** WEBAUTHN_RP_NAME: the name an authenticator shows beside the credential. */
  rpName: string;
  /**
   * WEBAUTHN_ORIGINS: where a ceremony may take place: web origins (`https://host[:port]`) and Android apps
   * (`android:apk-key-hash:<base64url SHA-256 of the signing certificate>`); an iOS app uses its associated
   * domain's https origin.
   */
  origins: string[];
  /**
   * False when the RP ID, derived from PUBLIC_URL, is an IP address: browsers refuse passkeys there, so the
   * passkey ceremonies answer 409 `passkeys_unavailable` and the pages hide their passkey buttons.
   */
  passkeysAvailable: boolean;
}

/** An Android app's facet: the SHA-256 of its signing certificate, base64url without padding (43 characters). */
const ANDROID_ORIGIN = /^android:apk-key-hash:[A-Za-z0-9_-]{43}$/;
/** A DNS name (labels of letters, digits and inner hyphens) or `localhost`: what a browser takes as RP ID. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function hostOf(publicUrl: string): string {
  return new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1');
}

function rpId(env: Env, publicUrl: string): string {
  const value = raw(env, 'WEBAUTHN_RP_ID');
  if (value === undefined) return hostOf(publicUrl);
  // `127.0.0.1` would pass as a domain of digit labels; browsers refuse any IP address as an RP ID.
  if (isIP(value.replace(/^\[(.*)\]$/, '$1')) !== 0) {
    throw new ConfigError(
      'WEBAUTHN_RP_ID',
      `is an IP address ("${value}"), but browsers make passkeys only for a domain name: set a domain ` +
        'such as localhost or example.com, and serve the pages there',
    );
  }
  if (!DOMAIN.test(value)) {
    throw new ConfigError(
      'WEBAUTHN_RP_ID',
      `must be a lower-case domain name such as example.com, without scheme or port (got "${value}")`,
    );
  }
  return value;
}

/** A web origin's host must be the RP ID or below it, else no browser would let it use the credentials. */
function webOrigin(entry: string, rp: string): string | undefined {
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== entry) return undefined;
  const host = url.hostname;
  if (host !== rp && !host.endsWith(`.${rp}`)) {
    throw new ConfigError(
      'WEBAUTHN_ORIGINS',
      `has "${entry}", whose host is not WEBAUTHN_RP_ID (${rp}) or a subdomain of it`,
    );
  }
  return entry;
}

function origins(env: Env, rp: string, publicUrl: string): string[] {
  const value = raw(env, 'WEBAUTHN_ORIGINS');
  if (value === undefined) return [new URL(publicUrl).origin];
  const entries = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0) throw new ConfigError('WEBAUTHN_ORIGINS', 'must name at least one origin');
  for (const entry of entries) {
    if (ANDROID_ORIGIN.test(entry) || webOrigin(entry, rp) !== undefined) continue;
    throw new ConfigError(
      'WEBAUTHN_ORIGINS',
      'must be a comma-separated list of origins such as https://accounts.example.com or ' +
        `android:apk-key-hash:<43 base64url characters> (got "${entry}")`,
    );
  }
  return [...new Set(entries)];
}

/** The start-up warning of a deployment whose passkeys cannot work (`passkeysAvailable` false), else undefined. */
export function passkeysWarning(config: WebAuthnConfig): string | undefined {
  if (config.passkeysAvailable) return undefined;
  return (
    `passkeys are off: PUBLIC_URL's host ${config.rpId} is an IP address, and browsers make passkeys only ` +
    'for a domain name; set PUBLIC_URL to one (http://localhost:PORT on this machine)'
  );
}

/** `publicUrl`: PUBLIC_URL as parsed (config/mail.ts), whose host and origin are the defaults. */
export function parseWebAuthn(env: Env, publicUrl: string): WebAuthnConfig {
  const rp = rpId(env, publicUrl);
  const rpName = raw(env, 'WEBAUTHN_RP_NAME') ?? 'accounts';
  if (rpName.length > 64) {
    throw new ConfigError('WEBAUTHN_RP_NAME', `must be at most 64 characters (got ${rpName.length})`);
  }
  return {
    rpId: rp,
    rpName,
    origins: origins(env, rp, publicUrl),
    passkeysAvailable: isIP(rp) === 0,
  };
}
