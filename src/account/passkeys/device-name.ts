import Bowser from 'bowser';

/** What a passkey is called when its owner gives no name: where it was made ("Chrome on macOS"). */
export function deviceName(userAgent: string | undefined): string {
  if (userAgent === undefined || userAgent.trim() === '') return 'Passkey';
  const { browser, os, platform } = Bowser.parse(userAgent);
  const where = os.name ?? platform.vendor ?? platform.type;
  const name = browser.name && where ? `${browser.name} on ${where}` : (browser.name ?? where);
  // At most what a name may hold (user/passkeys/{id}/rename takes 100 characters).
  return name ? name.slice(0, 100) : 'Passkey';
}
