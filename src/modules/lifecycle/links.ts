/** The link of a mail: the configured template with the token in place of `{token}`. */
export function linkWithToken(template: string, token: string): string {
  // base64url needs no escaping; encoding anyway keeps a template's query intact whatever a token holds.
  return template.replaceAll('{token}', encodeURIComponent(token));
}
