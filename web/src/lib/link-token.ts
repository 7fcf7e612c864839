/**
 * The `token` of a mailed link. It stays in the address so that the language switch (whose links keep the
 * query) still works; Referrer-Policy: no-referrer keeps it from leaking to any other request.
 */
export function tokenFromUrl(): string | undefined {
  const token = new URLSearchParams(location.search).get('token');
  return token === null || token === '' ? undefined : token;
}
