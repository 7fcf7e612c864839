import { t } from './i18n.js';

/** An IPv4 address, or an IPv6 one (the only hosts with a colon): no relying-party ID can be one. */
const IP_HOST = /^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:]*:[0-9a-f:.]*\]?)$/i;

/**
 * Why passkeys cannot work on this page, in the reader's language, or undefined when they can. Browsers
 * refuse a WebAuthn relying party at an IP address (http://127.0.0.1:8080), so there the page explains
 * the address instead of offering a button that can only fail and seem to blame the browser.
 */
export function passkeysUnusable(): string | undefined {
  if (IP_HOST.test(location.hostname))
    return t('error.passkeys_unusable_ip').replace('{host}', location.hostname);
  if (typeof window.PublicKeyCredential !== 'function') return t('error.passkeys_unsupported');
  return undefined;
}

/**
 * Hides each passkey control (`[data-passkey]`) when passkeys cannot work here, and shows the one-line
 * reason in each `[data-passkey-note]`. True when they can.
 */
export function offerPasskeys(): boolean {
  const reason = passkeysUnusable();
  for (const control of Array.from(document.querySelectorAll<HTMLElement>('[data-passkey]')))
    control.hidden = reason !== undefined;
  for (const note of Array.from(document.querySelectorAll<HTMLElement>('[data-passkey-note]'))) {
    note.textContent = reason ?? '';
    note.hidden = reason === undefined;
  }
  return reason === undefined;
}

/**
 * What to say when the browser's passkey ceremony failed: the address when the browser refused the site's
 * relying party (a host the server did not set passkeys up for), a passkey already added, or else `fallback`
 * (cancelled, timed out). @simplewebauthn/browser names the cause in the error's `code`.
 */
export function passkeyFailure(error: unknown, fallback: string): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === 'ERROR_INVALID_DOMAIN' || code === 'ERROR_INVALID_RP_ID')
    return t('error.passkeys_wrong_address').replace('{host}', location.host);
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return t('error.passkey_registered');
  return fallback;
}
