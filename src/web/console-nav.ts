import { escapeHtml, type Translate } from './html.js';
import type { MessageKey } from './i18n.js';

/**
 * The console's bar: each entry's page names mark it current (`aria-current`). An entry with a permission
 * starts hidden; the page's script shows it once `GET /me` says the role has it (web/src/console/staff.ts).
 */
const CONSOLE_NAV: ReadonlyArray<{
  href: string;
  label: MessageKey;
  pages: readonly string[];
  permission?: string;
}> = [
  { href: '/console', label: 'console.nav.home', pages: ['console'] },
  { href: '/console/users', label: 'console.nav.users', pages: ['console-users', 'console-user'] },
  { href: '/console/audit', label: 'console.nav.audit', pages: ['console-audit'] },
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
      const gate = permission === undefined ? '' : ` data-permission="${permission}" hidden`;
      return `<a href="${href}"${mark}${gate}>${escapeHtml(t(label))}</a>`;
    })
    .join(' ');
}
