import type { FastifyInstance } from 'fastify';
import { registerConsolePages } from './console-page.js';
import { table } from './console-users.js';
import { card, escapeHtml, field, formStatus, sectionStatus, submitButton, type Translate } from './html.js';
import type { MessageKey } from './i18n.js';

/**
 * The console's banners and inspirers: server-rendered shells like the other console pages, whose small
 * scripts call the admin API (a keyset page at a time) and show the forms only to a role that may change
 * content (the API refuses the rest with 403 all the same).
 */
const PAGES = {
  'console-banners': { url: '/console/banners', title: 'console.banners.title' },
  'console-inspirers': { url: '/console/inspirers', title: 'console.inspirers.title' },
} as const satisfies Record<string, { url: string; title: MessageKey }>;

type Page = keyof typeof PAGES;

const esc = (t: Translate, key: MessageKey) => escapeHtml(t(key));

const scheduleFields = (
  t: Translate,
  prefix = '',
) => `${field(t, `${prefix}starts_at`, 'console.banners.starts_at', { type: 'datetime-local' })}
${field(t, `${prefix}ends_at`, 'console.banners.ends_at', { type: 'datetime-local' })}`;

const linkField = (t: Translate, prefix = '') =>
  field(t, `${prefix}link_url`, 'console.banners.link_url', {
    type: 'url',
    hint: 'console.banners.link_hint',
    extra: ' spellcheck="false"',
  });

function body(page: Page, t: Translate): string {
  switch (page) {
    case 'console-banners':
      return `${card(
        `<form id="banner-add" method="post" enctype="multipart/form-data" novalidate>
${field(t, 'title', 'console.banners.banner_title', { required: true, extra: ' maxlength="255"' })}
${field(t, 'image', 'console.banners.image', { type: 'file', required: true, extra: ' accept="image/jpeg,image/png,image/gif"' })}
${linkField(t)}
${field(t, 'position', 'console.banners.position', { type: 'number', extra: ' step="1" value="0"' })}
${scheduleFields(t)}
${submitButton(t, 'console.banners.add')}
${formStatus}
</form>`,
        { id: 'banner-add-h', text: t('console.banners.add') },
      )}
${card(`${table('banners', ['console.col.image', 'console.banners.banner_title', 'console.banners.position', 'console.col.state', 'console.banners.schedule', 'console.banners.link_url', 'console.col.actions'], t)}
<p id="banners-none" hidden>${esc(t, 'console.banners.none')}</p>
<button type="button" id="next" hidden>${esc(t, 'console.users.next')}</button>
${sectionStatus}`)}
<dialog id="banner-edit" aria-labelledby="banner-edit-h">
<form id="banner-edit-form" method="dialog" novalidate>
<h2 id="banner-edit-h">${esc(t, 'console.banners.edit')}</h2>
${linkField(t, 'edit_')}
${field(t, 'edit_position', 'console.banners.position', { type: 'number', extra: ' step="1"' })}
${scheduleFields(t, 'edit_')}
<button type="submit" class="primary">${esc(t, 'console.banners.save')}</button>
<button type="button" id="banner-edit-cancel">${esc(t, 'console.user.cancel')}</button>
${sectionStatus}
</form>
</dialog>`;
    case 'console-inspirers':
      return `${card(
        `<form id="inspirer-add" method="post" novalidate>
${field(t, 'user', 'console.inspirers.user', { required: true, hint: 'console.inspirers.user_hint', extra: ' spellcheck="false"' })}
${submitButton(t, 'console.inspirers.add')}
${formStatus}
</form>`,
        { id: 'inspirer-add-h', text: t('console.inspirers.add') },
      )}
${card(`<p class="lead">${esc(t, 'console.inspirers.lead')}</p>
${table('inspirers', ['console.col.username', 'console.col.email', 'console.col.state', 'console.col.actions'], t)}
<p id="inspirers-none" hidden>${esc(t, 'console.inspirers.none')}</p>
<button type="button" id="next" hidden>${esc(t, 'console.users.next')}</button>
${sectionStatus}`)}`;
  }
}

/** /console/banners and /console/inspirers, under the pages' security headers. */
export function registerConsolePromotionPages(app: FastifyInstance, policy: string): void {
  registerConsolePages(app, policy, PAGES, body);
}
