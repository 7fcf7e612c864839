import { card, escapeHtml, field, sectionStatus, submitButton, type Translate } from './html.js';

/**
 * The profile's Security card: passkeys and the authenticator-app second factor. Its behaviour is
 * web/src/profile/passkeys.ts and web/src/profile/two-factor.ts. The field names differ from the details
 * form's (`current_password` there): ids are page-wide, and the modules send them under the API's names.
 */
export function securitySection(t: Translate): string {
  const password = (name: string) =>
    field(t, name, 'field.confirm_password', { type: 'password', autocomplete: 'current-password' });
  return card(
    `<p class="hint">${escapeHtml(t('security.reauth_hint'))}</p>
<h3 id="passkeys-heading">${escapeHtml(t('security.passkeys'))}</h3>
<ul id="passkeys" class="sessions" aria-labelledby="passkeys-heading"></ul>
<p id="no-passkeys" class="meta" hidden>${escapeHtml(t('security.no_passkeys'))}</p>
<form id="passkey-add" novalidate>
${password('passkey_password')}
${field(t, 'passkey_name', 'field.passkey_name', { autocomplete: 'off' })}
${submitButton(t, 'action.add_passkey')}
${sectionStatus}
</form>
<h3 id="two-factor-heading">${escapeHtml(t('security.two_factor'))}</h3>
<p id="totp-state" class="totp-state" role="status"></p>
<form id="totp-setup" novalidate hidden>
${password('totp_password')}
${submitButton(t, 'action.totp_setup')}
${sectionStatus}
</form>
<form id="totp-enable" novalidate hidden>
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
<form id="totp-manage" novalidate hidden>
${password('manage_password')}
${field(t, 'manage_code', 'field.totp_manage_code', { autocomplete: 'one-time-code', extra: ' spellcheck="false"' })}
<p class="actions"><button type="submit" value="disable">${escapeHtml(t('action.totp_disable'))}</button> <button type="submit" value="regenerate">${escapeHtml(t('action.regenerate'))}</button></p>
${sectionStatus}
</form>`,
    { id: 'security-heading', text: t('security.title') },
  );
}
