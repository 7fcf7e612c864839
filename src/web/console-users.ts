import type { FastifyInstance } from 'fastify';
import { registerConsolePages } from './console-page.js';
import { card, escapeHtml, formStatus, sectionStatus, type Translate } from './html.js';
import type { MessageKey } from './i18n.js';

/**
 * The console's users and access records pages: server-rendered shells, like the other
 * console pages (web/console.ts), whose small scripts call the admin API and fill the tables. Personal data
 * arrives masked; a field is shown in full only through the reason dialog, and the page shows the actions
 * the signed-in role may take (the API refuses the rest with 403 all the same).
 */
const PAGES = {
  'console-users': { url: '/console/users', title: 'console.users.title' },
  'console-user': { url: '/console/users/:id', title: 'console.user.title' },
  'console-audit': { url: '/console/audit', title: 'console.audit.title' },
} as const satisfies Record<string, { url: string; title: MessageKey }>;

type Page = keyof typeof PAGES;

const esc = (t: Translate, key: MessageKey) => escapeHtml(t(key));

export const input = (t: Translate, name: string, label: MessageKey, extra = '') =>
  `<div class="field"><label for="${name}">${esc(t, label)}</label>
<input id="${name}" name="${name}"${extra.includes('type=') ? '' : ' type="text"'}${extra} aria-describedby="${name}-message">
<p id="${name}-message" class="message" aria-live="polite"></p></div>`;

/** The reason dialog every "show" and action opens: a native <dialog>, so Escape and focus just work. */
export const reasonDialog = (t: Translate) => `<dialog id="reason-dialog" aria-labelledby="reason-label">
<form id="reason-form" method="dialog">
<div class="field"><label id="reason-label" for="reason">${esc(t, 'console.user.reason')}</label>
<textarea id="reason" name="reason" rows="3" maxlength="500" required aria-describedby="reason-message"></textarea>
<p id="reason-message" class="message" aria-live="polite"></p></div>
<button type="submit" value="confirm">${esc(t, 'console.user.confirm')}</button>
<button type="button" id="reason-cancel">${esc(t, 'console.user.cancel')}</button>
</form>
</dialog>`;

export const table = (id: string, columns: MessageKey[], t: Translate) =>
  `<div class="table-scroll"><table id="${id}"><thead><tr>${columns
    .map((key) => `<th scope="col">${esc(t, key)}</th>`)
    .join('')}</tr></thead><tbody></tbody></table></div>`;

function body(page: Page, t: Translate): string {
  switch (page) {
    case 'console-users':
      return `${card(`<form id="user-search" method="get" novalidate>
<div class="field"><label for="field">${esc(t, 'console.users.field')}</label>
<select id="field" name="field"><option value="email">email</option><option value="username">username</option>
<option value="slug">slug</option><option value="id">id</option>
<option value="phone">${esc(t, 'console.user.field.phone')}</option></select></div>
<div class="field"><label for="mode">${esc(t, 'console.users.mode')}</label>
<select id="mode" name="mode"><option value="exact">${esc(t, 'console.users.mode.exact')}</option>
<option value="prefix">${esc(t, 'console.users.mode.prefix')}</option></select></div>
${input(t, 'query', 'console.users.query', ' type="search" required spellcheck="false"')}
<button type="submit">${esc(t, 'console.users.search')}</button>
<button type="button" id="export" hidden>${esc(t, 'console.users.export')}</button>
${formStatus}
</form>`)}
${card(`${table('users', ['console.col.email', 'console.col.username', 'console.col.state', 'console.col.created'], t)}
<p id="users-none" hidden>${esc(t, 'console.users.none')}</p>
<button type="button" id="next" hidden>${esc(t, 'console.users.next')}</button>`)}
${reasonDialog(t)}`;
    case 'console-user':
      return `${card(`<dl id="profile"></dl>${sectionStatus}`, { id: 'profile-h', text: t('console.user.profile') })}
${card('<dl id="sign-in"></dl>', { id: 'sign-in-h', text: t('console.user.sign_in') })}
${card('<ul id="sessions"></ul>', { id: 'sessions-h', text: t('console.user.sessions') })}
${card('<ul id="devices"></ul>', { id: 'devices-h', text: t('console.user.devices') })}
${card('<ul id="activity"></ul>', { id: 'activity-h', text: t('console.user.activity') })}
${card('<ul id="consents"></ul>', { id: 'consents-h', text: t('console.user.consents') })}
${card('<dl id="identity"></dl>', { id: 'identity-h', text: t('console.user.identity') })}
${card('<dl id="deletion"></dl>', { id: 'deletion-h', text: t('console.user.deletion') })}
${card('<ul id="account-events"></ul>', { id: 'account-events-h', text: t('console.user.events') })}
<section class="card" id="actions-card" aria-labelledby="actions-h" hidden>
<h2 id="actions-h">${esc(t, 'console.user.actions')}</h2>
<div id="actions" class="actions"></div>
<p id="action-status" class="status" role="status"></p><p id="action-error" class="error" role="alert"></p>
</section>
<section class="card" id="rename-card" aria-labelledby="rename-h" hidden>
<h2 id="rename-h">${esc(t, 'console.user.rename')}</h2>
<form id="rename" method="post" novalidate>
<p>${esc(t, 'console.user.rename.hint')}</p>
${input(t, 'username', 'console.user.field.username', ' autocomplete="off" spellcheck="false"')}
${input(t, 'slug', 'console.user.field.slug', ' autocomplete="off" spellcheck="false"')}
<button type="submit">${esc(t, 'console.user.rename.submit')}</button>
${sectionStatus}
</form>
</section>
${reasonDialog(t)}`;
    case 'console-audit':
      return `${card(`<form id="audit-filter" method="get" novalidate>
${input(t, 'staff', 'console.audit.staff', ' spellcheck="false"')}
${input(t, 'subject', 'console.audit.subject', ' spellcheck="false"')}
${input(t, 'action', 'console.audit.action', ' spellcheck="false"')}
${input(t, 'from', 'console.audit.from', ' type="date"')}
${input(t, 'until', 'console.audit.until', ' type="date"')}
<button type="submit">${esc(t, 'console.audit.filter')}</button>
${formStatus}
</form>`)}
${card(`${table('records', ['console.col.at', 'console.col.actor', 'console.col.address', 'console.col.subject', 'console.col.action', 'console.col.reason', 'console.col.outcome'], t)}
<p id="records-none" hidden>${esc(t, 'console.audit.none')}</p>
<button type="button" id="next" hidden>${esc(t, 'console.users.next')}</button>`)}
${card(
  `<form id="review" method="get" novalidate>
${input(t, 'month', 'console.audit.month', ' pattern="[0-9]{4}-[0-9]{2}" required')}
<button type="submit">${esc(t, 'console.audit.review')}</button>
<p class="status" role="status"></p><p class="error" role="alert"></p>
</form>
<ul id="findings"></ul>
<p id="findings-none" hidden>${esc(t, 'console.audit.no_findings')}</p>`,
  { id: 'review-h', text: t('console.audit.review') },
)}`;
  }
}

/** /console/users, /console/users/:id and /console/audit, under the pages' security headers. */
export function registerConsoleUserPages(app: FastifyInstance, policy: string): void {
  registerConsolePages(app, policy, PAGES, body);
}
