import { card, escapeHtml, formStatus, type Translate } from './html.js';

/**
 * The guardian's page (`/guardian-consent?token=…`): web/src/pages/guardian-consent.ts reads the link
 * (guardian/consent), fills in the child's name and the documents the child agreed to, and shows the
 * buttons the link allows: agree or refuse (each through PortOne's verification window first where the
 * service verifies guardians), or withdraw a consent given.
 */
export function guardianConsentBody(t: Translate): string {
  const button = (id: string, key: Parameters<Translate>[0], primary = false) =>
    `<button type="button" id="${id}"${primary ? ' class="primary"' : ''} hidden>${escapeHtml(t(key))}</button>`;
  return card(`<form id="guardian-consent" method="post" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
<p id="guardian-lead" class="lead"></p>
<ul id="guardian-documents" class="documents"></ul>
<p id="guardian-method" class="hint"></p>
<p id="guardian-refuse-note" class="hint" hidden>${escapeHtml(t('guardian.refuse_note'))}</p>
<div class="actions">${button('guardian-agree', 'action.guardian_agree', true)} ${button('guardian-refuse', 'action.guardian_refuse')} ${button('guardian-withdraw', 'action.guardian_withdraw')}</div>
${formStatus}
</form>`);
}
