import type { Locale } from '../validation/messages.js';
import { escapeHtml, type Translate } from './html.js';
import { MESSAGES, type MessageKey } from './i18n.js';
import {
  cancelDeletionBody,
  forgotPasswordBody,
  homeBody,
  loginBody,
  resetPasswordBody,
  signupBody,
  verifyEmailBody,
} from './page-account.js';
import { profileBody } from './page-profile.js';

/** The pages and their paths; each has one browser module of the same name (web/src/pages/<name>.ts). */
export const PAGES = {
  home: '/',
  signup: '/signup',
  login: '/login',
  'forgot-password': '/forgot-password',
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
  'forgot-password': 'forgot.title',
  profile: 'profile.title',
  'verify-email': 'verify.title',
  'reset-password': 'reset.title',
  'cancel-deletion': 'cancel.title',
};

function body(context: PageContext, t: Translate): string {
  switch (context.page) {
    case 'home':
      return homeBody(t, context.docs);
    case 'signup':
      return signupBody(t);
    case 'login':
      return loginBody(t);
    case 'forgot-password':
      return forgotPasswordBody(t);
    case 'profile':
      return profileBody(t, { deletionGraceDays: context.deletionGraceDays });
    case 'verify-email':
      return verifyEmailBody(t);
    case 'cancel-deletion':
      return cancelDeletionBody(t);
    case 'reset-password':
      return resetPasswordBody(t);
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
  /** DELETION_GRACE_DAYS: the profile's deletion card says how long the account can still be kept. */
  deletionGraceDays: number;
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
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(t(TITLES[context.page]))} · ${escapeHtml(t('site.name'))}</title>
<link rel="stylesheet" href="/assets/styles.css">
<link rel="icon" href="data:,">
<script type="module" src="/assets/pages/${context.page}.js"></script>
</head>
<body data-api-base="${escapeHtml(context.apiBase)}" data-locale="${context.locale}">
<header class="site-header">
<div class="bar">
<a class="brand" href="/">${escapeHtml(t('site.name'))}</a>
<nav aria-label="${escapeHtml(t('site.name'))}" class="site-nav">${nav}</nav>
<nav aria-label="${escapeHtml(t('lang.label'))}" class="lang">${switchLink(context, 'ko', '한국어')} ${switchLink(context, 'en', 'English')}</nav>
</div>
</header>
<main class="page page-${context.page}">
<h1>${escapeHtml(t(TITLES[context.page]))}</h1>
${body(context, t)}
</main>
<script type="application/json" id="messages">${json}</script>
</body>
</html>
`;
}
