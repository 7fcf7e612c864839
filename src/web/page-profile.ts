import {
  card,
  escapeHtml,
  field,
  formStatus,
  genderField,
  passwordField,
  pictureField,
  sectionStatus,
  submitButton,
  type Translate,
  textareaField,
} from './html.js';
import type { MessageKey } from './i18n.js';
import { identityCard } from './page-identity.js';
import { phoneCard } from './page-phone.js';
import {
  activitySection,
  dataExportSection,
  deletionSection,
  type ProfileOptions,
  privacySection,
} from './page-privacy.js';
import { passkeysCard, twoFactorCard } from './page-security.js';

/**
 * The profile page: sections reached from a side list (a menu on a phone), one shown at a time
 * (web/src/profile/sections.ts), each of cards whose result lines sit under their own buttons. The
 * confirmation panel above the sections is shared: one proof of identity serves every sensitive change.
 * Each card's behaviour is one browser module of web/src/profile/.
 */

function pictureCard(t: Translate): string {
  return card(
    `<div class="picture-row">
<img id="current-picture" class="avatar" alt="${escapeHtml(t('profile.picture'))}" hidden>
<p id="no-picture" class="avatar placeholder" hidden>${escapeHtml(t('profile.no_picture'))}</p>
<form id="picture" method="post" novalidate>
${pictureField(t)}
${submitButton(t, 'action.upload')}
${sectionStatus}
</form>
</div>`,
    { id: 'picture-heading', text: t('profile.picture') },
  );
}

/**
 * The account's details; a changed email needs the confirmation panel, which then shows above. The fields
 * stay disabled until the account has loaded into them: what someone typed earlier would be overwritten by
 * the loaded values, and a save before that would send empty ones.
 */
function detailsCard(t: Translate): string {
  return card(
    `<form id="profile" method="post" novalidate>
<fieldset id="profile-fields" class="fields" disabled>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', hint: 'profile.email_hint' })}
${field(t, 'username', 'field.username', { autocomplete: 'username' })}
${field(t, 'slug', 'field.slug', { autocomplete: 'off' })}
${genderField(t)}
${textareaField(t, 'bio', 'field.bio')}
${submitButton(t, 'action.save')}
</fieldset>
${formStatus}
</form>`,
    { id: 'edit-heading', text: t('profile.edit') },
  );
}

/**
 * A new password, twice; the account's email rides along (hidden) so that a password manager files the new
 * password under the right account.
 */
function passwordCard(t: Translate): string {
  return card(
    `<p id="password-lead" class="hint">${escapeHtml(t('password.lead'))}</p>
<form id="password-change" method="post" novalidate>
<input id="password-username" type="email" autocomplete="username" hidden>
${passwordField(t, 'new_password', 'field.new_password', { autocomplete: 'new-password', required: true, strength: true })}
${passwordField(t, 'new_password_again', 'field.new_password_again', { autocomplete: 'new-password', required: true })}
${submitButton(t, 'action.change_password')}
${sectionStatus}
</form>`,
    { id: 'password-heading', text: t('password.title') },
  );
}

function sessionsCard(t: Translate): string {
  return card(
    `<ul id="sessions" class="sessions"></ul>
<p id="sessions-status" class="status" role="status"></p>`,
    { id: 'sessions-heading', text: t('profile.sessions') },
  );
}

/**
 * The proof of identity for every sensitive change, given once for a window (web/src/profile/reauth.ts); with
 * two-step verification on, the code (or a recovery code) beside the password.
 */
function reauthPanel(t: Translate): string {
  return `<section id="reauth-panel" class="card reauth-panel" aria-labelledby="reauth-heading" hidden>
<h2 id="reauth-heading">${escapeHtml(t('reauth.title'))}</h2>
<p id="reauth-state" class="reauth-state" role="status" hidden></p>
<form id="reauth-form" method="post" novalidate>
<p class="hint">${escapeHtml(t('reauth.lead'))}</p>
${passwordField(t, 'reauth_password', 'reauth.password', { autocomplete: 'current-password' })}
<div id="reauth-second-factor" hidden>
${field(t, 'reauth_code', 'reauth.code', { autocomplete: 'one-time-code', extra: ' inputmode="numeric" spellcheck="false"' })}
<p class="actions"><button type="button" id="reauth-code-kind" class="small" aria-controls="reauth_code">${escapeHtml(t('reauth.use_recovery'))}</button></p>
</div>
<p class="actions"><button type="submit" class="primary">${escapeHtml(t('reauth.confirm'))}</button> <button type="button" id="reauth-passkey" data-passkey>${escapeHtml(t('reauth.passkey'))}</button></p>
<p class="hint" data-passkey-note hidden></p>
${sectionStatus}
</form>
</section>`;
}

/** The sections in order: their name (the address's #fragment), title, and cards. */
const SECTIONS: ReadonlyArray<{
  name: string;
  title: MessageKey;
  cards: ReadonlyArray<(t: Translate, options: ProfileOptions) => string>;
}> = [
  { name: 'details', title: 'section.details', cards: [pictureCard, detailsCard, identityCard] },
  { name: 'signin', title: 'section.signin', cards: [passwordCard, phoneCard] },
  { name: 'security', title: 'section.security', cards: [twoFactorCard, passkeysCard] },
  { name: 'privacy', title: 'section.privacy', cards: [privacySection] },
  { name: 'activity', title: 'section.activity', cards: [sessionsCard, activitySection] },
  { name: 'data', title: 'section.data', cards: [dataExportSection, deletionSection] },
];

function sideColumn(t: Translate): string {
  const links = SECTIONS.map(
    (section) =>
      `<li><a href="#${section.name}" data-section-link="${section.name}">${escapeHtml(t(section.title))}</a></li>`,
  ).join('');
  const options = SECTIONS.map(
    (section) => `<option value="${section.name}">${escapeHtml(t(section.title))}</option>`,
  ).join('');
  return `<div class="profile-side">
<nav class="profile-nav" aria-label="${escapeHtml(t('profile.sections'))}"><ul>${links}</ul></nav>
<div class="profile-menu">
<label for="section-menu">${escapeHtml(t('profile.section_menu'))}</label>
<select id="section-menu">${options}</select>
</div>
<form id="signout" method="post" class="signout"><button type="submit">${escapeHtml(t('action.signout'))}</button></form>
</div>`;
}

export function profileBody(t: Translate, options: ProfileOptions): string {
  const sections = SECTIONS.map(
    (
      section,
    ) => `<section id="section-${section.name}" class="profile-section" aria-label="${escapeHtml(t(section.title))}">
${section.cards.map((build) => build(t, options)).join('\n')}
</section>`,
  ).join('\n');
  return `<div class="profile-layout">
${sideColumn(t)}
<div class="profile-content">
${reauthPanel(t)}
${sections}
</div>
</div>`;
}
