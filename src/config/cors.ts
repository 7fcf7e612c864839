import { ConfigError, type Env, raw } from './env.js';

/**
 * `CORS_ORIGINS`: the web origins (scheme, host and port, as a browser sends them in `Origin`) whose pages may
 * call the API. Default none: browsers then refuse every cross-origin call. No wildcard: the list says which
 * web clients exist.
 */
export function parseCorsOrigins(env: Env): string[] {
  const value = raw(env, 'CORS_ORIGINS');
  if (value === undefined) return [];
  const origins = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const origin of origins) {
    if (originOf(origin) !== origin) {
      throw new ConfigError(
        'CORS_ORIGINS',
        `must be a comma-separated list of origins such as https://app.example.com (got "${origin}")`,
      );
    }
  }
  return [...new Set(origins)];
}

/** The origin a browser would send for this URL, or undefined when it is not an http(s) origin. */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
