/**
 * The rules of a published version's texts, shared by `accounts consent publish` (src/cli/consent.ts) and the
 * console's publish (account/console-content): one place says what a document's title, page and body may be.
 */

/** The languages a document is published in. */
export const CONSENT_LANGUAGES = ['ko', 'en'] as const;

/** The longest title, in characters. */
export const MAX_TITLE_CHARS = 255;

/** The longest page URL. */
export const MAX_URL_LENGTH = 2048;

/** The largest document text: a page, with room to spare, never a mistaken binary. */
export const MAX_BODY_BYTES = 100 * 1024;

/** A page of the service's own (`/legal/terms`) or an http(s) URL. */
export function isDocumentUrl(value: string): boolean {
  if (/^\/(?!\/)\S*$/.test(value)) return true;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Why a body cannot be published as it is. */
export type BodyProblem = 'nul' | 'empty' | 'too_large';

/**
 * A body as it is stored: line breaks as `\n`, trimmed; or why it cannot be (NUL, which PostgreSQL refuses in
 * JSON text; nothing left; more than MAX_BODY_BYTES).
 */
export function cleanBody(text: string): { body: string } | { problem: BodyProblem } {
  if (text.includes('\u0000')) return { problem: 'nul' };
  const body = text.replace(/\r\n?/g, '\n').trim();
  if (body === '') return { problem: 'empty' };
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) return { problem: 'too_large' };
  return { body };
}
