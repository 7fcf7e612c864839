import { ConfigError, type Env, raw } from './env.js';

/**
 * Schemes a banner link may never have, even when an operator lists them: a client that opens the link would
 * run it (`javascript:`, `vbscript:`), render attacker-chosen content (`data:`) or open a local file (`file:`).
 */
const NEVER_LINKED = new Set(['javascript', 'vbscript', 'data', 'file', 'blob']);

const SCHEME = /^[a-z][a-z0-9+.-]*$/;

/**
 * BANNER_LINK_SCHEMES: the apps' own schemes a banner may link to (`myapp,myapp-beta`), besides http and https
 * which are always allowed. Default none.
 */
export function parseBannerLinkSchemes(env: Env): string[] {
  const value = raw(env, 'BANNER_LINK_SCHEMES');
  if (value === undefined) return [];
  const schemes = value
    .split(',')
    .map((scheme) => scheme.trim().replace(/:$/, '').toLowerCase())
    .filter((scheme) => scheme !== '');
  const bad = schemes.find((scheme) => !SCHEME.test(scheme) || NEVER_LINKED.has(scheme));
  if (bad !== undefined) {
    throw new ConfigError(
      'BANNER_LINK_SCHEMES',
      `must be a comma-separated list of app schemes such as myapp, never javascript, vbscript, data, file or blob (got "${bad}")`,
    );
  }
  return [...new Set(schemes)];
}
