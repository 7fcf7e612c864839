/**
 * The apps' patterns (PCRE, as their Laravel back end had them), with their meaning made explicit for JavaScript:
 * - in `[...0-9-_\.]` a hyphen right after a range is a literal hyphen, so it is written `\-` here;
 * - `$` without the m flag matches only at the very end (PCRE's would also allow one trailing newline;
 *   rejecting it is deliberate: a trailing newline is never part of a name).
 * Korean jamo ㄱ-ㅎ (U+3131-U+314E) and syllables 가-힣 (U+AC00-U+D7A3) are all in the BMP.
 *
 * The apps write `^[X]+[Y]*[X]+$` with X inside Y. That is exactly `^[X][Y]*[X]$` (at least two characters,
 * X first and last, Y between), which is the form used here: the original form backtracks polynomially on a
 * near-miss (a 255-character `aaa…a!` costs milliseconds of event loop), this one is linear. A property
 * test (test/unit/validation-patterns.test.ts) runs both on generated strings and checks they agree.
 */
export const USERNAME_PATTERN = /^[ㄱ-ㅎ가-힣A-Za-z0-9][ㄱ-ㅎ가-힣A-Za-z0-9\-_.]*[ㄱ-ㅎ가-힣A-Za-z0-9]$/;

export const SLUG_PATTERN = /^[A-Za-z0-9][A-Za-z0-9\-_]*[A-Za-z0-9]$/;

/**
 * The WHATWG "valid e-mail address" (what `<input type=email>` accepts), with at least one dot in the domain: `a@localhost` is valid HTML but no address a user of this app could receive mail at.
 */
export const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

/** Length in Unicode code points: a Korean syllable or an emoji is one character, as PHP's mb_strlen counts. */
export function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}

/**
 * A provider token as it may travel in an `Authorization` header: visible ASCII, no spaces. Anything else is
 * refused as input (a 422) rather than failing inside the HTTP client, whose error would quote the token.
 */
export const PROVIDER_TOKEN_PATTERN = /^[\x21-\x7E]+$/;
