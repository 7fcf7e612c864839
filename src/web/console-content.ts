import type { FastifyInstance } from 'fastify';
import { registerConsolePages } from './console-page.js';
import { input, reasonDialog, table } from './console-users.js';
import { card, escapeHtml, formStatus, sectionStatus, type Translate, textareaField } from './html.js';
import type { MessageKey } from './i18n.js';

/**
 * The console's posts and consent documents pages: server-rendered shells like the other console pages,
 * whose small scripts call the admin API. The actions show only for a role that may take them
 * (`content.write`); the API refuses the rest with 403 all the same.
 */
const PAGES = {
  'console-posts': { url: '/console/posts', title: 'console.posts.title' },
  'console-consents': { url: '/console/consents', title: 'console.consents.title' },
} as const satisfies Record<string, { url: string; title: MessageKey }>;

type Page = keyof typeof PAGES;

const esc = (t: Translate, key: MessageKey) => escapeHtml(t(key));

const language = (t: Translate, lang: 'ko' | 'en') =>
  `${input(t, `title_${lang}`, `console.consents.field.title_${lang}`, ' maxlength="255"')}
${input(t, `url_${lang}`, `console.consents.field.url_${lang}`, ' spellcheck="false"')}
${textareaField(t, `body_${lang}`, `console.consents.field.body_${lang}`, 6)}`;

function body(page: Page, t: Translate): string {
  switch (page) {
    case 'console-posts':
      return `${card(`<form id="post-search" method="get" novalidate>
<div class="field"><label for="by">${esc(t, 'console.posts.by')}</label>
<select id="by" name="by"><option value="author">${esc(t, 'console.posts.by.author')}</option>
<option value="post">${esc(t, 'console.posts.by.post')}</option></select></div>
${input(t, 'query', 'console.posts.query', ' type="search" required spellcheck="false"')}
<button type="submit">${esc(t, 'console.posts.find')}</button>
${formStatus}
</form>`)}
${card(`${table('posts', ['console.col.posted', 'console.col.author', 'console.col.post', 'console.col.likes', 'console.col.state', 'console.col.actions'], t)}
<p id="posts-none" hidden>${esc(t, 'console.posts.none')}</p>
<button type="button" id="next" hidden>${esc(t, 'console.users.next')}</button>`)}
${reasonDialog(t)}`;
    case 'console-consents':
      return `${card(
        `${table('documents', ['console.col.key', 'console.col.version', 'console.col.kind', 'console.col.title'], t)}
<p id="documents-none" hidden>${esc(t, 'console.consents.none')}</p>${sectionStatus}`,
        { id: 'documents-h', text: t('console.consents.documents') },
      )}
<section class="card" id="versions-card" aria-labelledby="versions-h" hidden>
<h2 id="versions-h" tabindex="-1">${esc(t, 'console.consents.versions')}</h2>
${table('versions', ['console.col.version', 'console.col.published', 'console.col.languages', 'console.col.title'], t)}
<article id="version-text" hidden><h3 id="version-title"></h3><div id="version-bodies"></div></article>
</section>
<section class="card" id="publish-card" aria-labelledby="publish-h" hidden>
<h2 id="publish-h">${esc(t, 'console.consents.publish')}</h2>
<form id="publish" method="post" novalidate>
${input(t, 'key', 'console.consents.field.key', ' required spellcheck="false" pattern="[a-z0-9_]{1,64}"')}
${input(t, 'version', 'console.consents.field.version', ' type="number" min="1" required')}
<div class="field"><label><input type="checkbox" id="required" name="required"> ${esc(t, 'console.consents.field.required')}</label></div>
${language(t, 'ko')}
${language(t, 'en')}
<button type="submit">${esc(t, 'console.consents.publish')}</button>
${sectionStatus}
</form>
</section>`;
  }
}

/** /console/posts and /console/consents, under the pages' security headers. */
export function registerConsoleContentPages(app: FastifyInstance, policy: string): void {
  registerConsolePages(app, policy, PAGES, body);
}
