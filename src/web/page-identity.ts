import { card, escapeHtml, sectionStatus, submitButton, type Translate } from './html.js';

/**
 * The identity card of the profile (본인인증): the account's state, and a button that runs PortOne's
 * verification window (web/src/profile/identity.ts). Where PortOne is not configured the button says so
 * once pressed (the API's 503), so the page needs no setting of its own.
 */
export function identityCard(t: Translate): string {
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
