import { card, escapeHtml, sectionStatus, submitButton, type Translate } from './html.js';
import type { ProfileOptions } from './page-privacy.js';

/**
 * The identity card of the profile (본인인증): the account's state, and a button that runs PortOne's
 * verification window (web/src/profile/identity.ts). Where PortOne is not configured there is no card, as
 * passkey buttons are hidden where passkeys cannot work (a server that loses PortOne later still answers
 * the button with its 503, which the card says).
 */
export function identityCard(t: Translate, options: ProfileOptions): string {
  if (!options.identity) return '';
  return card(
    `<p class="hint">${escapeHtml(t('identity.lead'))}</p>
<p id="identity-state" class="identity-state" role="status"></p>
<form id="identity" method="post" novalidate>
${submitButton(t, 'identity.verify')}
${sectionStatus}
</form>`,
    { id: 'identity-heading', text: t('identity.title') },
  );
}
