import type { FastifyInstance, FastifyRequest } from 'fastify';
import { consoleNav } from './console-nav.js';
import { securityHeaders } from './headers.js';
import { card, escapeHtml, field, formStatus, passwordField, submitButton, type Translate } from './html.js';
import { LANG_COOKIE, MESSAGES, type MessageKey, pageLocale } from './i18n.js';
import { renderLayout } from './pages.js';

/**
 * The operator console's pages: server-rendered shells in the user pages'
 * design (the same layout, stylesheet and small scripts, no build step of their own) whose scripts call the
 * admin API at /admin/v1. They hold no data and read no session: the staff cookie (Path=/admin) never
 * reaches them, and a page learns who is signed in from `GET /admin/v1/me`.
 */
export const CONSOLE_PAGES = {
  console: '/console',
  'console-login': '/console/login',
  'console-enroll': '/console/enroll',
} as const;

type ConsolePage = keyof typeof CONSOLE_PAGES;

const TITLES: Record<ConsolePage, MessageKey> = {
  console: 'console.home.title',
  'console-login': 'console.login.title',
  'console-enroll': 'console.enroll.title',
};

const codeField = (t: Translate) =>
  field(t, 'code', 'console.field.code', {
    autocomplete: 'one-time-code',
    required: true,
    extra: ' inputmode="numeric" pattern="[0-9]*" maxlength="6" spellcheck="false"',
  });

function body(page: ConsolePage, t: Translate): string {
  switch (page) {
    case 'console':
      return `${card(`<dl class="console-who" id="who" hidden>
<dt>${escapeHtml(t('console.signed_in_as'))}</dt><dd id="who-email"></dd>
<dt>${escapeHtml(t('console.role'))}</dt><dd id="who-role"></dd>
<dt>${escapeHtml(t('console.permissions'))}</dt><dd id="who-permissions"></dd>
</dl>
<form id="sign-out" method="post" novalidate>
<button type="submit">${escapeHtml(t('console.action.sign_out'))}</button>
${formStatus}
</form>`)}`;
    case 'console-login':
      return card(`<p class="lead">${escapeHtml(t('console.login.lead'))}</p>
<form id="console-login" method="post" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'username', required: true })}
${passwordField(t, 'password', 'field.password', { autocomplete: 'current-password', required: true })}
${codeField(t)}
${submitButton(t, 'console.action.sign_in')}
<p><button type="button" id="passkey-sign-in" data-passkey>${escapeHtml(t('console.action.sign_in_passkey'))}</button></p>
<p class="hint" data-passkey-note hidden></p>
${formStatus}
</form>`);
    case 'console-enroll':
      return card(`<p class="lead">${escapeHtml(t('console.enroll.lead'))}</p>
<form id="console-enroll" method="post" novalidate hidden>
<p id="enroll-who"></p>
${passwordField(t, 'password', 'field.new_password', { autocomplete: 'new-password', required: true })}
<fieldset class="field">
<legend class="label">${escapeHtml(t('console.enroll.factor'))}</legend>
<label><input type="radio" name="factor" value="totp" checked> ${escapeHtml(t('console.enroll.factor_totp'))}</label>
<label data-passkey><input type="radio" name="factor" value="passkey"> ${escapeHtml(t('console.enroll.factor_passkey'))}</label>
<p class="hint" data-passkey-note hidden></p>
</fieldset>
<div id="enroll-totp">
<div class="field">
<p class="label">${escapeHtml(t('console.enroll.secret'))}</p>
<p><code id="enroll-secret"></code></p>
<p><a id="enroll-app" href="#">${escapeHtml(t('console.enroll.open_app'))}</a></p>
</div>
${codeField(t)}
</div>
${submitButton(t, 'console.action.enroll')}
</form>
${formStatus}
<p id="enroll-done" hidden>${escapeHtml(t('console.enroll.done'))} <a href="/console/login">${escapeHtml(t('console.action.sign_in'))}</a></p>`);
  }
}

const nav = (current: ConsolePage, t: Translate) => consoleNav(current, t, current === 'console');

function renderConsolePage(page: ConsolePage, request: FastifyRequest): string {
  const { locale } = pageLocale(request);
  const t = (key: MessageKey) => MESSAGES[locale][key];
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  query.delete('lang');
  return renderLayout({
    locale,
    heading: t(TITLES[page]),
    name: page,
    switchHref: (other) => {
      const switched = new URLSearchParams(query);
      switched.set('lang', other);
      return `${CONSOLE_PAGES[page]}?${switched}`;
    },
    content: body(page, t),
    script: { name: page, apiBase: '/admin/v1' },
    app: { brand: t('console.name'), href: '/console', nav: nav(page, t) },
  });
}

/** /console, /console/login and /console/enroll, under the pages' security headers. */
export function registerConsolePages(app: FastifyInstance, policy: string): void {
  for (const [page, url] of Object.entries(CONSOLE_PAGES) as Array<[ConsolePage, string]>) {
    app.get(url, async (request, reply) => {
      if (pageLocale(request).chosen)
        reply.header(
          'set-cookie',
          `${LANG_COOKIE}=${pageLocale(request).locale}; Path=/; SameSite=Lax; Max-Age=31536000`,
        );
      securityHeaders(reply, policy);
      reply.header('cache-control', 'no-store');
      reply.header('vary', 'accept-language, cookie');
      reply.type('text/html; charset=utf-8');
      return renderConsolePage(page, request);
    });
  }
}
