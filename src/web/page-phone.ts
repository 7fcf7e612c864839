import { card, escapeHtml, field, sectionStatus, submitButton, type Translate } from './html.js';
import type { ProfileOptions } from './page-privacy.js';

/**
 * The profile's mobile number (web/src/profile/phone.ts): the number and whether it is verified, a new one
 * (formatted as typed) and the code texted to it, and its removal. Adding, changing and removing take their
 * proof of identity from the confirmation panel above the section (page-profile.ts). Shown only where codes
 * can be texted (SOLAPI, or development's log).
 */
export function phoneCard(t: Translate, options: ProfileOptions): string {
  // Without a way to text the code, the card could only ever answer 503: it is left out, as /login's form.
  if (!options.phone) return '';
  return card(
    `<p class="hint">${escapeHtml(t('phone.lead'))}</p>
<p id="phone-state" class="phone-state">${escapeHtml(t('phone.none'))}</p>
<form id="phone-add" method="post" novalidate>
${field(t, 'phone', 'field.phone', { autocomplete: 'tel', required: true, extra: ' inputmode="tel" placeholder="010-1234-5678"' })}
${submitButton(t, 'action.phone_send')}
${sectionStatus}
</form>
<form id="phone-verify" method="post" novalidate hidden>
${field(t, 'phone_code', 'field.phone_code', { autocomplete: 'one-time-code', required: true, extra: ' inputmode="numeric" pattern="[0-9]*" maxlength="6"' })}
${submitButton(t, 'action.phone_verify')}
${sectionStatus}
</form>
<form id="phone-remove" method="post" novalidate hidden>
<button type="submit">${escapeHtml(t('action.phone_remove'))}</button>
${sectionStatus}
</form>`,
    { id: 'phone-heading', text: t('phone.title') },
  );
}
