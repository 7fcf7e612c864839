import type { Locale } from '../validation/messages.js';
import { rulePatternsJson } from './field-rules.js';
import { escapeHtml, type Translate } from './html.js';
import { MESSAGES, type MessageKey } from './i18n.js';
import {
  accountDeletedBody,
  cancelDeletionBody,
  forgotPasswordBody,
  homeBody,
  loginBody,
  resetPasswordBody,
  signupBody,
  verifyEmailBody,
} from './page-account.js';
import { guardianConsentBody } from './page-guardian.js';
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
  'account-deleted': '/account-deleted',
  'guardian-consent': '/guardian-consent',
} as const;

export type PageName = keyof typeof PAGES;

/**
 * The pages that run PortOne's verification window (본인인증): the profile's identity card and the
 * guardian's page. Where PortOne is configured, their CSP admits PortOne (src/web/headers.ts).
 */
export const PORTONE_PAGES: ReadonlySet<PageName> = new Set<PageName>(['profile', 'guardian-consent']);

const TITLES: Record<PageName, MessageKey> = {
  home: 'home.title',
  signup: 'signup.title',
  login: 'login.title',
  'forgot-password': 'forgot.title',
  profile: 'profile.title',
  'verify-email': 'verify.title',
  'reset-password': 'reset.title',
  'cancel-deletion': 'cancel.title',
  'account-deleted': 'deleted.title',
  'guardian-consent': 'guardian.title',
};

function body(context: PageContext, t: Translate): string {
  switch (context.page) {
    case 'home':
      return homeBody(t, context.docs);
    case 'signup':
      return signupBody(t, context.ageGate);
    case 'login':
      return loginBody(t, context.phone);
    case 'forgot-password':
      return forgotPasswordBody(t);
    case 'profile':
      return profileBody(t, {
        deletionGraceDays: context.deletionGraceDays,
        identity: context.identity,
        phone: context.phone,
      });
    case 'verify-email':
      return verifyEmailBody(t);
    case 'cancel-deletion':
      return cancelDeletionBody(t);
    case 'reset-password':
      return resetPasswordBody(t);
    case 'account-deleted':
      return accountDeletedBody(t);
    case 'guardian-consent':
      return guardianConsentBody(t);
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
  /** AGE_GATE=birth_date: the sign-up asks the date of birth. */
  ageGate: boolean;
  /** PortOne is configured: the profile offers 본인인증 (without it the card is left out, as it cannot work). */
  identity: boolean;
  /** Codes can be texted (SOLAPI, or development's log): /login and the profile offer the mobile number. */
  phone: boolean;
  /** The request carries a live session: the navigation offers the account, not signing up or in. */
  signedIn: boolean;
}

/** What every page shares: the header with its navigation and language switch, around the page's own main. */
export interface Layout {
  locale: Locale;
  /** The page's heading, also the document's title before the site's name. */
  heading: string;
  /** The `page-<name>` class of its main element. */
  name: string;
  /** The page of the navigation marked current, if it is one. */
  current?: PageName;
  /** Signed in: the navigation leads to the account instead of the sign-up and log-in pages. */
  signedIn?: boolean;
  /** The same page in another language (the language switch's links). */
  switchHref(locale: Locale): string;
  /** The main element's content after the heading: HTML already escaped by its builder. */
  content: string;
  /** The page's script and its body data (a page of plain text has none). */
  script?: { name: string; apiBase: string };
  /** Another app's header: its brand link and navigation (the console's), instead of the user pages'. */
  app?: { brand: string; href: string; nav: string };
}

function switchLink(layout: Layout, locale: Locale, label: string): string {
  const current = layout.locale === locale ? ' aria-current="true"' : '';
  return `<a href="${escapeHtml(layout.switchHref(locale))}" lang="${locale}" hreflang="${locale}"${current}>${label}</a>`;
}

/** A whole HTML document. A script (an ES module from 'self') reads the strings from a JSON block. */
export function renderLayout(layout: Layout): string {
  const messages = MESSAGES[layout.locale];
  const t = (key: MessageKey) => messages[key];
  const links = layout.signedIn
    ? (['home', 'profile'] as const)
    : (['home', 'signup', 'login', 'profile'] as const);
  const nav =
    layout.app?.nav ??
    links
      .map((page) => {
        const current = page === layout.current ? ' aria-current="page"' : '';
        return `<a href="${PAGES[page]}"${current}>${escapeHtml(t(`nav.${page}`))}</a>`;
      })
      .join(' ');
  const brand = layout.app
    ? `<a class="brand" href="${layout.app.href}">${escapeHtml(t('site.name'))} · ${escapeHtml(layout.app.brand)}</a>`
    : `<a class="brand" href="/">${escapeHtml(t('site.name'))}</a>`;
  const { script } = layout;
  // `<` escaped: the JSON must not be able to close its <script> element.
  const json = script
    ? `\n<script type="application/json" id="messages">${JSON.stringify(messages).replace(/</g, '\\u003c')}</script>
<script type="application/json" id="rule-patterns">${rulePatternsJson(layout.locale)}</script>`
    : '';
  const head = script ? `\n<script type="module" src="/assets/pages/${script.name}.js"></script>` : '';
  const data = script ? ` data-api-base="${escapeHtml(script.apiBase)}"` : '';
  return `<!doctype html>
<html lang="${layout.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(layout.heading)} · ${escapeHtml(t('site.name'))}</title>
<link rel="stylesheet" href="/assets/styles.css">
<link rel="icon" href="data:,">${head}
</head>
<body${data} data-locale="${layout.locale}">
<header class="site-header layout-${layout.name}">
<div class="bar">
${brand}
<nav aria-label="${escapeHtml(t('site.name'))}" class="site-nav">${nav}</nav>
<nav aria-label="${escapeHtml(t('lang.label'))}" class="lang">${switchLink(layout, 'ko', '한국어')} ${switchLink(layout, 'en', 'English')}</nav>
</div>
</header>
<main class="page page-${layout.name}">
<h1>${escapeHtml(layout.heading)}</h1>
${layout.content}
</main>${json}
</body>
</html>
`;
}

/** The whole HTML document of a page. */
export function renderPage(context: PageContext): string {
  const messages = MESSAGES[context.locale];
  const t = (key: MessageKey) => messages[key];
  return renderLayout({
    locale: context.locale,
    heading: t(TITLES[context.page]),
    name: context.page,
    current: context.page,
    signedIn: context.signedIn,
    switchHref: (locale) => {
      const query = new URLSearchParams(context.query);
      query.set('lang', locale);
      return `${PAGES[context.page]}?${query}`;
    },
    content: body(context, t),
    script: { name: context.page, apiBase: context.apiBase },
  });
}
