import type { FastifyInstance } from 'fastify';
import { registerConsolePages } from './console-page.js';
import { input, reasonDialog, table } from './console-users.js';
import { card, escapeHtml, formStatus, sectionStatus, type Translate } from './html.js';
import type { MessageKey } from './i18n.js';

/**
 * /console/webhooks: the endpoints, a form to add one, and the deliveries of the one chosen, a keyset page
 * at a time. A server-rendered shell like the other console pages; its script calls the admin API, which
 * answers only a role with `webhooks.manage` (admin). Each change asks its reason in the same dialog.
 */
const URL_PATH = '/console/webhooks';

const esc = (t: Translate, key: MessageKey) => escapeHtml(t(key));

function body(t: Translate): string {
  return `${card(
    `${table('endpoints', ['console.webhooks.col.url', 'console.webhooks.col.events', 'console.col.state', 'console.user.actions'], t)}
<p id="endpoints-none" hidden>${esc(t, 'console.webhooks.none')}</p>
<div id="endpoints-status">${sectionStatus}</div>
<div id="secret-box" hidden><p>${esc(t, 'console.webhooks.secret_once')}</p><p><code id="secret"></code></p></div>`,
    { id: 'endpoints-h', text: t('console.webhooks.endpoints') },
  )}
${card(
  `<form id="webhook-add" method="post" novalidate>
${input(t, 'url', 'console.webhooks.url', ' type="text" inputmode="url" required spellcheck="false" placeholder="https://"')}
${input(t, 'events', 'console.webhooks.events', ' type="text" spellcheck="false"')}
${input(t, 'description', 'console.webhooks.description', ' type="text" maxlength="500"')}
<button type="submit">${esc(t, 'console.webhooks.add')}</button>
${formStatus}
</form>`,
  { id: 'add-h', text: t('console.webhooks.add') },
)}
<section class="card" id="deliveries-card" aria-labelledby="deliveries-h" hidden>
<h2 id="deliveries-h" tabindex="-1">${esc(t, 'console.webhooks.deliveries')}</h2>
<p><code id="deliveries-of"></code></p>
${table('deliveries', ['console.webhooks.col.event', 'console.webhooks.col.type', 'console.col.state', 'console.webhooks.col.attempts', 'console.user.actions'], t)}
<p id="deliveries-none" hidden>${esc(t, 'console.webhooks.no_deliveries')}</p>
<button type="button" id="next" hidden>${esc(t, 'console.users.next')}</button>
<div id="deliveries-status">${sectionStatus}</div>
</section>
${reasonDialog(t)}`;
}

/** /console/webhooks, under the pages' security headers. */
export function registerConsoleWebhookPage(app: FastifyInstance, policy: string): void {
  const pages = { 'console-webhooks': { url: URL_PATH, title: 'console.webhooks.title' } } as const;
  registerConsolePages(app, policy, pages, (_page, t) => body(t));
}
