import { card, escapeHtml, field, sectionStatus, submitButton, type Translate } from './html.js';

/**
 * The profile's two-step verification and passkeys. Their behaviour is web/src/profile/two-factor.ts and
 * web/src/profile/passkeys.ts; the proof of identity they need comes from the confirmation panel
 * (page-profile.ts), not from fields of their own.
 */
export function twoFactorCard(t: Translate): string {
  return card(
    `<p id="totp-state" class="totp-state" role="status"></p>
<form id="totp-setup" method="post" novalidate hidden>
${submitButton(t, 'action.totp_setup')}
${sectionStatus}
</form>
<form id="totp-enable" method="post" novalidate hidden>
<img id="totp-qr" class="qr" alt="${escapeHtml(t('security.qr'))}" width="200" height="200">
<p>${escapeHtml(t('security.secret'))} <code id="totp-secret" class="secret"></code></p>
${field(t, 'totp_code', 'field.totp_code', { autocomplete: 'one-time-code', extra: ' inputmode="numeric"' })}
${submitButton(t, 'action.totp_enable')}
${sectionStatus}
</form>
<div id="recovery-codes" class="recovery" hidden>
<p>${escapeHtml(t('security.recovery_codes'))}</p>
<ol id="recovery-list" class="codes"></ol>
<p class="actions"><button type="button" id="recovery-copy">${escapeHtml(t('action.copy'))}</button> <a id="recovery-download" class="button" download="recovery-codes.txt" href="#">${escapeHtml(t('action.download'))}</a></p>
<p id="recovery-status" class="status" role="status"></p>
</div>
<form id="totp-manage" method="post" novalidate hidden>
${field(t, 'manage_code', 'field.totp_manage_code', { autocomplete: 'one-time-code', extra: ' spellcheck="false"' })}
<p class="actions"><button type="submit" value="disable">${escapeHtml(t('action.totp_disable'))}</button> <button type="submit" value="regenerate">${escapeHtml(t('action.regenerate'))}</button></p>
${sectionStatus}
</form>`,
    { id: 'two-factor-heading', text: t('security.two_factor') },
  );
}

export function passkeysCard(t: Translate): string {
  return card(
    `<ul id="passkeys" class="sessions" aria-labelledby="passkeys-heading"></ul>
<p id="no-passkeys" class="meta" hidden>${escapeHtml(t('security.no_passkeys'))}</p>
<p class="hint" data-passkey-note hidden></p>
<form id="passkey-add" method="post" novalidate>
<div data-passkey>
${field(t, 'passkey_name', 'field.passkey_name', { autocomplete: 'off' })}
${submitButton(t, 'action.add_passkey')}
</div>
${sectionStatus}
</form>`,
    { id: 'passkeys-heading', text: t('security.passkeys') },
  );
}
