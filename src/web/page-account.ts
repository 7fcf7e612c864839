import {
  card,
  escapeHtml,
  field,
  formStatus,
  genderField,
  pictureField,
  sectionStatus,
  submitButton,
  type Translate,
} from './html.js';

/** The bodies of the pages around signing in: home, sign-up, log-in, and the pages the mails link to. */

export function homeBody(t: Translate, docs: boolean): string {
  const link = (href: string, key: Parameters<Translate>[0], primary = false) =>
    `<li><a class="${primary ? 'button primary' : 'button'}" href="${href}">${escapeHtml(t(key))}</a></li>`;
  const docsLink = docs ? `\n<p class="aside"><a href="/docs">${escapeHtml(t('nav.docs'))}</a></p>` : '';
  return `${card(`<p class="lead">${escapeHtml(t('home.lead'))}</p>
<ul class="actions">${link('/signup', 'nav.signup', true)}${link('/login', 'nav.login')}${link('/profile', 'nav.profile')}</ul>`)}${docsLink}`;
}

export function signupBody(t: Translate): string {
  return `${card(`<form id="signup" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${field(t, 'username', 'field.username', { autocomplete: 'username', required: true })}
${field(t, 'slug', 'field.slug', { autocomplete: 'off' })}
${genderField(t)}
${field(t, 'password', 'field.password', { type: 'password', autocomplete: 'new-password', required: true })}
${consentFields(t)}
${pictureField(t)}
${submitButton(t, 'action.signup')}
${formStatus}
</form>`)}
<p class="aside">${escapeHtml(t('signup.have_account'))} <a href="/login">${escapeHtml(t('nav.login'))}</a></p>`;
}

/**
 * The sign-up's consents: one box for every required document (listed under it by web/src/pages/signup.ts
 * from consents/documents, in the page's language), then one unticked box per optional document.
 */
function consentFields(t: Translate): string {
  return `<div class="field checkbox">
  <input id="user_agreement" name="user_agreement" type="checkbox" value="on" aria-describedby="required-documents user_agreement-message">
  <label for="user_agreement">${escapeHtml(t('field.user_agreement'))}</label>
  <ul id="required-documents" class="documents" aria-label="${escapeHtml(t('consent.required_lead'))}"></ul>
  <p id="user_agreement-message" class="message" aria-live="polite"></p>
</div>
<div id="optional-consents" class="optional-consents" hidden>
  <p class="hint">${escapeHtml(t('consent.optional_lead'))}</p>
</div>
<p id="consents-error" class="message error" role="alert"></p>`;
}

export function loginBody(t: Translate): string {
  return `${card(`<form id="login" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${field(t, 'password', 'field.password', { type: 'password', autocomplete: 'current-password', required: true })}
<p class="form-link"><a href="/forgot-password">${escapeHtml(t('login.forgot'))}</a></p>
${submitButton(t, 'action.login')}
${formStatus}
</form>
<div id="passkey-login" class="alternative">
<p class="or">${escapeHtml(t('login.or'))}</p>
<button type="button" id="passkey-login-button">${escapeHtml(t('login.passkey'))}</button>
${sectionStatus}
</div>
<form id="second-factor" novalidate hidden>
<p class="lead">${escapeHtml(t('login.second_factor'))}</p>
${field(t, 'code', 'field.second_factor_code', { autocomplete: 'one-time-code', required: true, extra: ' inputmode="text" spellcheck="false"' })}
${submitButton(t, 'action.verify_code')}
<button type="button" id="start-over" hidden>${escapeHtml(t('login.start_over'))}</button>
${sectionStatus}
</form>`)}
<p class="aside">${escapeHtml(t('login.no_account'))} <a href="/signup">${escapeHtml(t('nav.signup'))}</a></p>`;
}

/** The API answers the same for every address, so the page can only ever say "if there is an account…". */
export function forgotPasswordBody(t: Translate): string {
  return `${card(`<p class="lead">${escapeHtml(t('forgot.lead'))}</p>
<form id="forgot" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${submitButton(t, 'action.send_reset')}
${formStatus}
</form>`)}
<p class="aside"><a href="/login">${escapeHtml(t('forgot.back'))}</a></p>`;
}

export function verifyEmailBody(t: Translate): string {
  return card(`<form id="verify" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${submitButton(t, 'action.verify')}
${formStatus}
</form>`);
}

/** With the mailed link's token, one button; without one, the account's email and password instead. */
export function cancelDeletionBody(t: Translate): string {
  return card(`<form id="cancel-deletion" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
<div id="cancel-credentials" hidden>
<p class="hint">${escapeHtml(t('cancel.credentials_lead'))}</p>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${field(t, 'password', 'field.password', { type: 'password', autocomplete: 'current-password', required: true })}
</div>
${submitButton(t, 'action.cancel_deletion')}
${formStatus}
</form>`);
}

export function resetPasswordBody(t: Translate): string {
  return card(`<form id="reset" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${field(t, 'password', 'field.new_password', { type: 'password', autocomplete: 'new-password', required: true })}
${submitButton(t, 'action.reset')}
${formStatus}
</form>`);
}
