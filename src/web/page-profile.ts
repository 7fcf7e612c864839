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
  textareaField,
} from './html.js';
import {
  activitySection,
  dataExportSection,
  deletionSection,
  type ProfileOptions,
  privacySection,
} from './page-privacy.js';
import { securitySection } from './page-security.js';

/**
 * The profile page: one card per section, in this order. Each section's behaviour is one browser module of
 * web/src/profile/, so a new section is a builder here and a module there.
 */

function pictureSection(t: Translate): string {
  return card(
    `<div class="picture-row">
<img id="current-picture" class="avatar" alt="${escapeHtml(t('profile.picture'))}" hidden>
<p id="no-picture" class="avatar placeholder" hidden>${escapeHtml(t('profile.no_picture'))}</p>
<form id="picture" novalidate>
${pictureField(t)}
${submitButton(t, 'action.upload')}
${sectionStatus}
</form>
</div>`,
    { id: 'picture-heading', text: t('profile.picture') },
  );
}

/** The account's details; a changed email reveals the current-password field the API asks for. */
function detailsSection(t: Translate): string {
  return card(
    `<form id="profile" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', hint: 'profile.email_hint' })}
<div id="reauth" class="reauth" hidden>
${field(t, 'current_password', 'field.current_password', { type: 'password', autocomplete: 'current-password', hint: 'profile.reauth_hint' })}
</div>
${field(t, 'username', 'field.username', { autocomplete: 'username' })}
${field(t, 'slug', 'field.slug', { autocomplete: 'off' })}
${genderField(t)}
${textareaField(t, 'bio', 'field.bio')}
${submitButton(t, 'action.save')}
${formStatus}
</form>`,
    { id: 'edit-heading', text: t('profile.edit') },
  );
}

function sessionsSection(t: Translate): string {
  return card(
    `<ul id="sessions" class="sessions"></ul>
<p id="sessions-status" class="status" role="status"></p>`,
    { id: 'sessions-heading', text: t('profile.sessions') },
  );
}

function signOutSection(t: Translate): string {
  return `<form id="signout" class="signout"><button type="submit">${escapeHtml(t('action.signout'))}</button></form>`;
}

const PROFILE_SECTIONS: ReadonlyArray<(t: Translate, options: ProfileOptions) => string> = [
  pictureSection,
  detailsSection,
  sessionsSection,
  securitySection,
  privacySection,
  activitySection,
  dataExportSection,
  deletionSection,
  signOutSection,
];

export function profileBody(t: Translate, options: ProfileOptions): string {
  return PROFILE_SECTIONS.map((section) => section(t, options)).join('\n');
}
