import { locale } from './i18n.js';

/** The API's envelope: `meta.code` is the status; `data` the answer or the error's details. */
export interface Envelope<T = Record<string, unknown>> {
  meta: { code: number; error_type?: string; error_message?: string };
  data: T;
}

export interface ApiAnswer<T = Record<string, unknown>> {
  status: number;
  body: Envelope<T>;
}

/** Where the profile keeps the end of the session's confirmation window for this tab (profile/reauth.ts). */
export const REAUTH_UNTIL_KEY = 'accounts.reauth_until';

/** How many requests this page has sent that changed something (a POST answered 2xx). */
let changes = 0;
export const changeCount = (): number => changes;

/** e.g. `/dev`: the API version the server told this page to call. */
const apiBase = document.body.dataset.apiBase ?? '/v1';

/**
 * One call of the API (or of the web-session routes when `path` starts with `/web/`). The session travels in
 * the HttpOnly cookie the browser adds; the custom header is what lets the server accept that cookie (CSRF
 * defence: a cross-site page cannot send it). Rejects only when the network fails.
 */
export async function api<T = Record<string, unknown>>(
  path: string,
  options: {
    method?: 'GET' | 'POST';
    body?: FormData | Record<string, unknown>;
    bearer?: string;
    signal?: AbortSignal;
    /** More headers: the console's X-CSRF-Token. */
    headers?: Record<string, string>;
  } = {},
): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'accept-language': locale,
    'x-requested-with': 'accounts-web',
  };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  Object.assign(headers, options.headers);
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const url = path.startsWith('/web/') ? path : `${apiBase}${path}`;
  const response = await fetch(url, {
    method: options.method ?? (body ? 'POST' : 'GET'),
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (response.ok && (options.method ?? (body ? 'POST' : 'GET')) === 'POST') changes += 1;
  const parsed = (await response
    .json()
    .catch(() => ({ meta: { code: response.status }, data: {} }))) as Envelope<T>;
  return { status: response.status, body: parsed };
}

/**
 * Turns the token of a login/register/reset answer into the HttpOnly session cookie, then drops it: after this
 * no script can read it (see docs/SECURITY.md "Web pages").
 */
export async function startSession(token: string): Promise<boolean> {
  // A new session has no confirmation window yet, whatever the tab remembers of the previous one.
  sessionStorage.removeItem(REAUTH_UNTIL_KEY);
  const answer = await api('/web/session', { method: 'POST', bearer: token });
  return answer.status === 200;
}
