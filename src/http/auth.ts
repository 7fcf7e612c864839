/** `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(header);
  return match?.[1];
}
