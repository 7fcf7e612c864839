import { card, escapeHtml, sectionStatus, type Translate } from './html.js';

/**
 * The profile's Privacy, Activity, data download and deletion cards. Their behaviour is web/src/profile/
 * privacy.ts, activity.ts, data-export.ts and deletion.ts; the proof of identity the last two need comes
 * from the confirmation panel (page-profile.ts).
 */

/** What the profile's cards need from the server's configuration. */
export interface ProfileOptions {
  /** DELETION_GRACE_DAYS: days between asking and the erasure; 0 = erased at once. */
  deletionGraceDays: number;
  /** PortOne is configured: the details section shows the 본인인증 card. */
  identity: boolean;
  /** Codes can be texted: the sign-in section shows the mobile number card (without, it cannot work). */
  phone: boolean;
}

export function privacySection(t: Translate): string {
  return card(
    `<p class="hint">${escapeHtml(t('privacy.lead'))}</p>
<p id="consents-pending" class="notice" role="status" hidden>${escapeHtml(t('privacy.pending_lead'))}</p>
<ul id="consents" class="sessions consents" aria-labelledby="privacy-heading"></ul>
<form id="consents-form" method="post" novalidate>
${sectionStatus}
</form>`,
    { id: 'privacy-heading', text: t('privacy.title') },
  );
}

export function activitySection(t: Translate): string {
  return card(
    `<ol id="activity" class="sessions activity" aria-labelledby="activity-heading"></ol>
<p id="no-activity" class="meta" hidden>${escapeHtml(t('activity.empty'))}</p>
<form id="activity-more" method="post" novalidate>
<button type="submit" hidden>${escapeHtml(t('activity.more'))}</button>
${sectionStatus}
</form>`,
    { id: 'activity-heading', text: t('activity.title') },
  );
}

export function dataExportSection(t: Translate): string {
  return card(
    `<p class="hint">${escapeHtml(t('export.lead'))}</p>
<form id="data-export" method="post" novalidate>
<button type="submit">${escapeHtml(t('action.export'))}</button>
${sectionStatus}
<p id="export-ready" class="export-ready" hidden><a id="export-download" class="button primary" href="#">${escapeHtml(t('export.download'))}</a> <span id="export-expires" class="meta"></span></p>
</form>`,
    { id: 'export-heading', text: t('export.title') },
  );
}

/** Where to take a deletion back: the mailed link, or the cancel page with the email and password. */
function cancelHint(t: Translate, days: string): string {
  const [before = '', after = ''] = t('delete.cancel_hint').replace('{days}', days).split('{link}');
  const link = `<a href="/cancel-deletion">${escapeHtml(t('delete.cancel_link'))}</a>`;
  return `${escapeHtml(before)}${link}${escapeHtml(after)}`;
}

/** Typing the phrase is the confirmation: a deletion never follows from a stray click. */
function confirmField(t: Translate): string {
  const label = t('delete.confirm_label').replace('{word}', t('delete.confirm_word'));
  return `<div class="field">
  <label for="delete_confirm">${escapeHtml(label)}</label>
  <input id="delete_confirm" name="delete_confirm" type="text" autocomplete="off" spellcheck="false" aria-describedby="delete_confirm-message">
  <p id="delete_confirm-message" class="message" aria-live="polite"></p>
</div>`;
}

/** The grace period is the server's (DELETION_GRACE_DAYS): the card says it before anything is asked. */
export function deletionSection(t: Translate, options: ProfileOptions): string {
  const days = String(options.deletionGraceDays);
  const lead =
    options.deletionGraceDays > 0
      ? `<p>${escapeHtml(t('delete.lead_grace').replace('{days}', days))}</p>
<p class="hint">${cancelHint(t, days)}</p>`
      : `<p>${escapeHtml(t('delete.lead_now'))}</p>`;
  return card(
    `${lead}
<form id="delete-account" method="post" novalidate>
${confirmField(t)}
<button type="submit" class="danger">${escapeHtml(t('action.delete'))}</button>
${sectionStatus}
</form>`,
    { id: 'delete-heading', text: t('delete.title') },
  );
}
