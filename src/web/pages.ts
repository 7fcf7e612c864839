import type { Locale } from '../validation/messages.js';
import { MESSAGES, type MessageKey } from './i18n.js';

/** The pages and their paths; each has one browser module of the same name (web/src/pages/<name>.ts). */
export const PAGES = {
  home: '/',
  signup: '/signup',
  login: '/login',
  profile: '/profile',
  'verify-email': '/verify-email',
  'reset-password': '/reset-password',
  'cancel-deletion': '/cancel-deletion',
} as const;

export type PageName = keyof typeof PAGES;

const TITLES: Record<PageName, MessageKey> = {
  home: 'home.title',
  signup: 'signup.title',
  login: 'login.title',
  profile: 'profile.title',
  'verify-email': 'verify.title',
  'reset-password': 'reset.title',
  'cancel-deletion': 'cancel.title',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface FieldOptions {
  type?: string;
  autocomplete?: string;
  required?: boolean;
  extra?: string;
}

/** A labelled input whose message paragraph (availability or errors) is tied to it by aria-describedby. */
function field(t: (key: MessageKey) => string, name: string, label: MessageKey, options: FieldOptions = {}) {
  const type = options.type ?? 'text';
  const autocomplete = options.autocomplete ? ` autocomplete="${options.autocomplete}"` : '';
  const required = options.required ? ' required' : '';
  return `<div class="field">
  <label for="${name}">${escapeHtml(t(label))}</label>
  <input id="${name}" name="${name}" type="${type}"${autocomplete}${required}${options.extra ?? ''} aria-describedby="${name}-message">
  <p id="${name}-message" class="message" aria-live="polite"></p>
</div>`;
}

function genderField(t: (key: MessageKey) => string): string {
  return `<fieldset class="field" aria-describedby="gender-message">
  <legend>${escapeHtml(t('field.gender'))}</legend>
  <label><input type="radio" name="gender" value="0"> ${escapeHtml(t('field.gender.female'))}</label>
  <label><input type="radio" name="gender" value="1"> ${escapeHtml(t('field.gender.male'))}</label>
  <p id="gender-message" class="message" aria-live="polite"></p>
</fieldset>`;
}

function pictureField(t: (key: MessageKey) => string): string {
  return `<div class="field">
  <label for="profile_picture">${escapeHtml(t('field.profile_picture'))}</label>
  <input id="profile_picture" name="profile_picture" type="file" accept="image/jpeg,image/png,image/gif" aria-describedby="profile_picture-message">
  <img id="preview" class="preview" alt="${escapeHtml(t('field.preview'))}" hidden>
  <p id="profile_picture-message" class="message" aria-live="polite"></p>
</div>`;
}

/** Form-wide outcome: a polite status line and an assertive error line. */
const formStatus =
  '<p id="form-status" class="status" role="status"></p><p id="form-error" class="error" role="alert"></p>';

function body(page: PageName, t: (key: MessageKey) => string, docs: boolean): string {
  const button = (key: MessageKey) => `<button type="submit">${escapeHtml(t(key))}</button>`;
  switch (page) {
    case 'home': {
      const docsLink = docs ? `<li><a href="/docs">${escapeHtml(t('nav.docs'))}</a></li>` : '';
      return `<p>${escapeHtml(t('home.lead'))}</p>
<ul class="links"><li><a href="/signup">${escapeHtml(t('nav.signup'))}</a></li><li><a href="/login">${escapeHtml(t('nav.login'))}</a></li><li><a href="/profile">${escapeHtml(t('nav.profile'))}</a></li>${docsLink}</ul>`;
    }
    case 'signup':
      return `<form id="signup" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${field(t, 'username', 'field.username', { autocomplete: 'username', required: true })}
${field(t, 'slug', 'field.slug', { autocomplete: 'off' })}
${genderField(t)}
${field(t, 'password', 'field.password', { type: 'password', autocomplete: 'new-password', required: true })}
<div class="field checkbox">
  <input id="user_agreement" name="user_agreement" type="checkbox" value="on" aria-describedby="user_agreement-message">
  <label for="user_agreement">${escapeHtml(t('field.user_agreement'))}</label>
  <p id="user_agreement-message" class="message" aria-live="polite"></p>
</div>
${pictureField(t)}
${button('action.signup')}
${formStatus}
</form>
<p>${escapeHtml(t('signup.have_account'))} <a href="/login">${escapeHtml(t('nav.login'))}</a></p>`;
    case 'login':
      return `<form id="login" novalidate>
${field(t, 'email', 'field.email', { type: 'email', autocomplete: 'email', required: true })}
${field(t, 'password', 'field.password', { type: 'password', autocomplete: 'current-password', required: true })}
${button('action.login')}
${formStatus}
</form>
<p>${escapeHtml(t('login.no_account'))} <a href="/signup">${escapeHtml(t('nav.signup'))}</a></p>`;
    case 'profile':
      return `<section aria-labelledby="picture-heading">
<h2 id="picture-heading">${escapeHtml(t('profile.picture'))}</h2>
<img id="current-picture" class="avatar" alt="${escapeHtml(t('profile.picture'))}" hidden>
<p id="no-picture" hidden>${escapeHtml(t('profile.no_picture'))}</p>
<form id="picture" novalidate>
${pictureField(t)}
${button('action.upload')}
<p class="status" role="status"></p><p class="error" role="alert"></p>
</form>
</section>
<section aria-labelledby="edit-heading">
<h2 id="edit-heading">${escapeHtml(t('profile.edit'))}</h2>
<form id="profile" novalidate>
${field(t, 'email', 'field.email', { type: 'email', extra: ' readonly' })}
${field(t, 'username', 'field.username', { autocomplete: 'username' })}
${field(t, 'slug', 'field.slug', { autocomplete: 'off' })}
${genderField(t)}
<div class="field">
  <label for="bio">${escapeHtml(t('field.bio'))}</label>
  <textarea id="bio" name="bio" rows="3" aria-describedby="bio-message"></textarea>
  <p id="bio-message" class="message" aria-live="polite"></p>
</div>
${button('action.save')}
${formStatus}
</form>
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">${escapeHtml(t('profile.sessions'))}</h2>
<ul id="sessions" class="sessions"></ul>
<p id="sessions-status" class="status" role="status"></p>
</section>
<form id="signout"><button type="submit">${escapeHtml(t('action.signout'))}</button></form>`;
    case 'verify-email':
      return `<form id="verify" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${button('action.verify')}
${formStatus}
</form>`;
    case 'cancel-deletion':
      return `<form id="cancel-deletion" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${button('action.cancel_deletion')}
${formStatus}
</form>`;
    case 'reset-password':
      return `<form id="reset" novalidate>
<p id="token-message" class="message" aria-live="polite"></p>
${field(t, 'password', 'field.new_password', { type: 'password', autocomplete: 'new-password', required: true })}
${button('action.reset')}
${formStatus}
</form>`;
  }
}

export interface PageContext {
  page: PageName;
  locale: Locale;
  /** e.g. `/dev`: the API version the page's script calls. */
  apiBase: string;
  /** The request's query string without `lang`, kept by the language switch (the mailed token lives there). */
  query: URLSearchParams;
  /** Whether /docs is served (DOCS_ENABLED): the home page links to it only then. */
  docs: boolean;
}

function switchLink(context: PageContext, locale: Locale, label: string): string {
  const query = new URLSearchParams(context.query);
  query.set('lang', locale);
  const current = context.locale === locale ? ' aria-current="true"' : '';
  return `<a href="${escapeHtml(`${PAGES[context.page]}?${query}`)}" lang="${locale}" hreflang="${locale}"${current}>${label}</a>`;
}

/** The whole HTML document of a page. Its script (an ES module from 'self') reads the strings from a JSON block. */
export function renderPage(context: PageContext): string {
  const messages = MESSAGES[context.locale];
  const t = (key: MessageKey) => messages[key];
  // `<` escaped: the JSON must not be able to close its <script> element.
  const json = JSON.stringify(messages).replace(/</g, '\\u003c');
  const nav = (['home', 'signup', 'login', 'profile'] as const)
    .map((page) => {
      const current = page === context.page ? ' aria-current="page"' : '';
      return `<a href="${PAGES[page]}"${current}>${escapeHtml(t(`nav.${page}`))}</a>`;
    })
    .join(' ');
  return `<!doctype html>
<html lang="${context.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(t(TITLES[context.page]))} · ${escapeHtml(t('site.name'))}</title>
<link rel="stylesheet" href="/assets/styles.css">
<link rel="icon" href="data:,">
<script type="module" src="/assets/pages/${context.page}.js"></script>
</head>
<body data-api-base="${escapeHtml(context.apiBase)}" data-locale="${context.locale}">
<header>
<nav aria-label="${escapeHtml(t('site.name'))}">${nav}</nav>
<nav aria-label="${escapeHtml(t('lang.label'))}" class="lang">${switchLink(context, 'ko', '한국어')} ${switchLink(context, 'en', 'English')}</nav>
</header>
<main>
<h1>${escapeHtml(t(TITLES[context.page]))}</h1>
${body(context.page, t, context.docs)}
</main>
<script type="application/json" id="messages">${json}</script>
</body>
</html>
`;
}
