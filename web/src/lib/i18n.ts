/** The page's strings, in its language, from the JSON block the server rendered (src/web/i18n.ts). */
const messages: Record<string, string> = JSON.parse(
  document.getElementById('messages')?.textContent ?? '{}',
) as Record<string, string>;

export function t(key: string): string {
  return messages[key] ?? key;
}

/** `ko` or `en`: sent as Accept-Language so the API's 422 messages come in the page's language. */
export const locale: string = document.body.dataset.locale ?? 'en';
