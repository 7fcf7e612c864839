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
