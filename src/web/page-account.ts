import {
  card,
  escapeHtml,
  field,
  formStatus,
  genderField,
  passwordField,
  pictureField,
  requiredMark,
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

/** `ageGate`: AGE_GATE=birth_date, so the date of birth is asked (and a child's next step explained). */
export function signupBody(t: Translate, ageGate: boolean): string {
  const birthDate = ageGate
    ? `\n${field(t, 'birth_date', 'field.birth_date', { type: 'date', autocomplete: 'bday', required: true, hint: 'signup.birth_date_hint' })}`
    : '';
  return `${card(`<form id="signup" method="post" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${field(t, 'username', 'field.username', { autocomplete: 'username', required: true })}
${field(t, 'slug', 'field.slug', { autocomplete: 'off' })}
${genderField(t, true)}${birthDate}
${passwordField(t, 'password', 'field.password', { autocomplete: 'new-password', required: true, strength: true })}
${signupCodeFields(t)}
${consentFields(t)}
${pictureField(t)}
${submitButton(t, 'action.signup')}
${formStatus}
</form>`)}
${guardianStep(t)}
<p class="aside">${escapeHtml(t('signup.have_account'))} <a href="/login">${escapeHtml(t('nav.login'))}</a></p>`;
}

/**
 * Beside the password, the other proof of the address: a code mailed to it (auth/email-code, purpose
 * `register`). web/src/lib/signup-code.ts swaps the password for the code field once the code is asked.
 */
function signupCodeFields(t: Translate): string {
  return `<p class="actions signup-code-choice"><button type="button" id="signup-code-send" class="small">${escapeHtml(t('signup.use_code'))}</button></p>
<div id="signup-code-entry" hidden>
<p class="hint">${escapeHtml(t('signup.code_hint'))}</p>
${field(t, 'signup_code', 'field.signup_code', { autocomplete: 'one-time-code', required: true, extra: ' inputmode="numeric" pattern="[0-9]*" maxlength="6"' })}
<p class="actions"><button type="button" id="signup-code-resend" class="small">${escapeHtml(t('signup.resend_code'))}</button> <button type="button" id="signup-use-password" class="small">${escapeHtml(t('signup.use_password'))}</button></p>
</div>`;
}

/** Shown after the sign-up of a child under 14: the child names a guardian, who gets the consent link. */
function guardianStep(t: Translate): string {
  return `<section id="guardian-step" class="card" hidden>
<form id="guardian-request" method="post" novalidate>
<p class="lead">${escapeHtml(t('signup.guardian_lead'))}</p>
${field(t, 'guardian_email', 'field.guardian_email', { type: 'email', autocomplete: 'off', required: true })}
${submitButton(t, 'action.ask_guardian')}
${sectionStatus}
</form>
</section>`;
}

/**
 * The sign-up's consents: 전체 동의 first (it ticks and unticks every box below, each still its own), one box
 * for every required document (listed under it by web/src/pages/signup.ts from consents/documents, in the
 * page's language), then one unticked box per optional document.
 */
function consentFields(t: Translate): string {
  return `<div class="field checkbox agree-all">
  <input id="agree_all" type="checkbox" aria-describedby="agree_all-message">
  <label for="agree_all">${escapeHtml(t('consent.all'))}</label>
  <p id="agree_all-message" class="message" aria-live="polite"></p>
</div>
<div class="field checkbox">
  <input id="user_agreement" name="user_agreement" type="checkbox" value="on" required aria-describedby="required-documents user_agreement-message">
  <label for="user_agreement">${escapeHtml(t('field.user_agreement'))}${requiredMark(t)}</label>
  <ul id="required-documents" class="documents" aria-label="${escapeHtml(t('consent.required_lead'))}"></ul>
  <p id="user_agreement-message" class="message" aria-live="polite"></p>
</div>
<div id="optional-consents" class="optional-consents" hidden>
  <p class="hint">${escapeHtml(t('consent.optional_lead'))}</p>
</div>
<p id="consents-error" class="message error" role="alert"></p>`;
}

/** `phone`: codes can be texted (SOLAPI, or development's log), so the mobile number is offered. */
export function loginBody(t: Translate, phone: boolean): string {
  return `${card(`<form id="login" method="post" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${passwordField(t, 'password', 'field.password', { autocomplete: 'current-password', required: true })}
<p class="form-link"><a href="/forgot-password">${escapeHtml(t('login.forgot'))}</a></p>
${submitButton(t, 'action.login')}
${formStatus}
</form>
<div id="passkey-login" class="alternative">
<p class="or">${escapeHtml(t('login.or'))}</p>
<button type="button" id="passkey-login-button" data-passkey>${escapeHtml(t('login.passkey'))}</button>
<p class="hint" data-passkey-note hidden></p>
${sectionStatus}
</div>
<form id="email-code" class="alternative" method="post" novalidate>
<button type="button" id="email-code-send">${escapeHtml(t('login.email_code'))}</button>
<div id="email-code-entry" hidden>
${field(t, 'email_code', 'field.email_code', { autocomplete: 'one-time-code', extra: ' inputmode="numeric" pattern="[0-9]*" maxlength="6"' })}
${submitButton(t, 'action.login')}
</div>
${sectionStatus}
</form>
${phone ? phoneLoginForm(t) : ''}
<form id="email-link" method="post" novalidate hidden>
<p class="lead">${escapeHtml(t('login.email_link'))}</p>
${submitButton(t, 'action.login')}
${sectionStatus}
</form>
<form id="second-factor" method="post" novalidate hidden>
<p class="lead">${escapeHtml(t('login.second_factor'))}</p>
${field(t, 'code', 'field.second_factor_code', { autocomplete: 'one-time-code', required: true, extra: ' inputmode="text" spellcheck="false"' })}
${submitButton(t, 'action.verify_code')}
<button type="button" id="start-over" hidden>${escapeHtml(t('login.start_over'))}</button>
${sectionStatus}
</form>`)}
<p class="aside">${escapeHtml(t('login.no_account'))} <a href="/signup">${escapeHtml(t('nav.signup'))}</a></p>`;
}

/**
 * The third way in, by a mobile number: the button opens the number's field (formatted as typed), then the
 * code sent by text message (web/src/lib/phone-login.ts).
 */
function phoneLoginForm(t: Translate): string {
  return `<form id="phone-login" class="alternative" method="post" novalidate>
<button type="button" id="phone-login-open" aria-expanded="false" aria-controls="phone-login-fields">${escapeHtml(t('login.phone'))}</button>
<div id="phone-login-fields" class="phone-fields" hidden>
${field(t, 'phone', 'field.phone', { autocomplete: 'tel', required: true, extra: ' inputmode="tel" placeholder="010-1234-5678"' })}
<button type="button" id="phone-code-send">${escapeHtml(t('login.phone_send'))}</button>
<div id="phone-code-entry" hidden>
${field(t, 'phone_code', 'field.phone_code', { autocomplete: 'one-time-code', required: true, extra: ' inputmode="numeric" pattern="[0-9]*" maxlength="6"' })}
${submitButton(t, 'action.login')}
</div>
</div>
${sectionStatus}
</form>`;
}

/** The API answers the same for every address, so the page can only ever say "if there is an account…". */
export function forgotPasswordBody(t: Translate): string {
  return `${card(`<p class="lead">${escapeHtml(t('forgot.lead'))}</p>
<form id="forgot" method="post" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${submitButton(t, 'action.send_reset')}
${formStatus}
</form>`)}
<p class="aside"><a href="/login">${escapeHtml(t('forgot.back'))}</a></p>`;
}

/**
 * One button (mail scanners that open links must not use the token up); a used or expired link says so and
 * offers a new one, sent to the signed-in user's address (user/email/resend).
 */
export function verifyEmailBody(t: Translate): string {
  return card(`<form id="verify" method="post" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${submitButton(t, 'action.verify')}
${formStatus}
</form>
<form id="resend" method="post" novalidate hidden>
<p class="hint">${escapeHtml(t('verify.resend_lead'))}</p>
<button type="submit">${escapeHtml(t('action.resend'))}</button>
<p id="resend-login" class="hint" hidden><a href="/login">${escapeHtml(t('verify.login_to_resend'))}</a></p>
${sectionStatus}
</form>`);
}

/** With the mailed link's token, one button; without one, the account's email and password instead. */
export function cancelDeletionBody(t: Translate): string {
  return card(`<form id="cancel-deletion" method="post" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
<div id="cancel-credentials" hidden>
<p class="hint">${escapeHtml(t('cancel.credentials_lead'))}</p>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${passwordField(t, 'password', 'field.password', { autocomplete: 'current-password', required: true })}
</div>
${submitButton(t, 'action.cancel_deletion')}
${formStatus}
</form>`);
}

/** The new password; an account with a second factor then gives its code, as at log-in, to be signed in. */
export function resetPasswordBody(t: Translate): string {
  return card(`<form id="reset" method="post" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${passwordField(t, 'password', 'field.new_password', { autocomplete: 'new-password', required: true, strength: true })}
${submitButton(t, 'action.reset')}
${formStatus}
</form>
<form id="second-factor" method="post" novalidate hidden>
<p class="lead">${escapeHtml(t('reset.second_factor'))}</p>
${field(t, 'code', 'field.second_factor_code', { autocomplete: 'one-time-code', required: true, extra: ' inputmode="text" spellcheck="false"' })}
${submitButton(t, 'action.verify_code')}
${sectionStatus}
</form>`);
}

/**
 * Where a deletion leaves the user: what happens next and how to take it back. The script shows the part
 * that fits (`?on=` the erasure's date, none when it is done) and writes the date in the reader's zone.
 */
export function accountDeletedBody(t: Translate): string {
  return card(`<div id="deletion-scheduled" hidden>
<p><strong id="deletion-date"></strong></p>
<p>${escapeHtml(t('deleted.until'))}</p>
<p>${escapeHtml(t('deleted.cancel_lead'))} <a href="/cancel-deletion">${escapeHtml(t('deleted.cancel_link'))}</a>.</p>
</div>
<p id="deletion-done" hidden>${escapeHtml(t('deleted.now'))}</p>
<p class="actions"><a class="button" href="/">${escapeHtml(t('deleted.home'))}</a></p>`);
}
