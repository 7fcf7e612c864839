import { escapeHtml, type Translate } from './html.js';
import type { MessageKey } from './i18n.js';

/**
 * The console's bar: each entry's page names mark it current (`aria-current`). An entry with a permission is
 * shown only to roles that have it: the pages cannot read the staff cookie (Path=/admin), so the page's script
 * hides it once GET /me has said what the role may do (web/src/console/staff.ts).
 */
const CONSOLE_NAV: ReadonlyArray<{
  href: string;
  label: MessageKey;
  pages: readonly string[];
  /** Shown only to a role with this permission: the page's script reveals it after `GET /me`. */
  permission?: string;
}> = [
  { href: '/console', label: 'console.nav.home', pages: ['console'] },
  { href: '/console/users', label: 'console.nav.users', pages: ['console-users', 'console-user'] },
  { href: '/console/audit', label: 'console.nav.audit', pages: ['console-audit'], permission: 'audit.read' },
  {
    href: '/console/posts',
    label: 'console.nav.posts',
    pages: ['console-posts'],
    permission: 'content.read',
  },
  {
    href: '/console/consents',
    label: 'console.nav.consents',
    pages: ['console-consents'],
    permission: 'content.read',
  },
  {
    href: '/console/webhooks',
    label: 'console.nav.webhooks',
    pages: ['console-webhooks'],
    permission: 'webhooks.manage',
  },
  {
    href: '/console/banners',
    label: 'console.nav.banners',
    pages: ['console-banners'],
    permission: 'content.read',
  },
  {
    href: '/console/inspirers',
    label: 'console.nav.inspirers',
    pages: ['console-inspirers'],
    permission: 'content.read',
  },
];

/**
 * The bar of the console page `current`. The signed-out pages (sign-in, enrollment) show only the way home:
 * the others would answer them with the sign-in anyway.
 */
export function consoleNav(current: string, t: Translate, signedIn: boolean): string {
  const entries = signedIn ? CONSOLE_NAV : CONSOLE_NAV.slice(0, 1);
  return entries
    .map(({ href, label, pages, permission }) => {
      const mark = pages.includes(current) ? ' aria-current="page"' : '';
      const needs = permission === undefined ? '' : ` data-permission="${permission}"`;
      return `<a href="${href}"${mark}${needs}>${escapeHtml(t(label))}</a>`;
    })
    .join(' ');
}
