import { AsYouType, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/** Why a typed number cannot receive a code (each is a 422 on `phone`). */
export type PhoneRefusal = 'phone_invalid' | 'phone_not_mobile' | 'phone_country';

/** A number as the service keeps it. */
export interface MobileNumber {
  /** `+821012345678`. */
  e164: string;
  /** ISO 3166 region (`KR`). */
  country: string;
  /** The national significant number (`1012345678`). */
  national: string;
  /** The country calling code (`82`). */
  callingCode: string;
}

/** The region a number without `+` is read in: the users are Korean (`010-1234-5678`). */
export const DEFAULT_REGION = 'KR';

/**
 * Reads a typed number (`010-1234-5678`, `01012345678`, `+82 10 1234 5678` are one number) with the full
 * metadata (the only one that knows a number's type), and accepts only a valid mobile number of an allowed
 * region: a premium, fixed-line or foreign number is where SMS fraud sends its codes.
 */
export function parseMobileNumber(
  typed: string,
  allowedCountries: readonly string[],
): { number: MobileNumber } | { refused: PhoneRefusal } {
  const parsed = parsePhoneNumberFromString(typed, DEFAULT_REGION);
  if (!parsed?.isValid() || parsed.country === undefined) return { refused: 'phone_invalid' };
  const type = parsed.getType();
  // FIXED_LINE_OR_MOBILE: regions whose plans cannot tell them apart (the US); a mobile number may be one.
  if (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') return { refused: 'phone_not_mobile' };
  if (!allowedCountries.includes(parsed.country)) return { refused: 'phone_country' };
  return {
    number: {
      e164: parsed.number,
      country: parsed.country,
      national: parsed.nationalNumber,
      callingCode: parsed.countryCallingCode,
    },
  };
}

/**
 * A number for the logs: the country code, the first digits and the last four (`+82 10-****-5678`). Enough to
 * tell two numbers apart when following one complaint, not enough to call or text anyone.
 */
export function maskPhone(e164: string): string {
  // A number as typed (a request's field) is read as parsing reads it; unreadable, nothing of it is shown.
  const parsed = parsePhoneNumberFromString(e164, DEFAULT_REGION);
  if (parsed === undefined) return '+***';
  const national: string = parsed.nationalNumber;
  const code = parsed.countryCallingCode;
  if (national.length < 7) return `+${code} ***`;
  return `+${code} ${national.slice(0, 2)}-${'*'.repeat(national.length - 6)}-${national.slice(-4)}`;
}

/** The block a number belongs to (less its last four digits): fraud pumps neighbouring numbers. */
export function numberPrefix(e164: string): string {
  return e164.slice(0, -4);
}

/**
 * A number, or the start of one, as someone types it (`010-1234-5678`, `010-12`, `+82 10 12`) in E.164 as
 * `users.phone` holds it (`+821012345678`, `+821012`): read as a phone's keypad reads it while typing, in the
 * default region, so the national `0` becomes `+82`. Undefined when nothing in it begins a number.
 */
export function typedNumberStart(typed: string): string | undefined {
  const reader = new AsYouType(DEFAULT_REGION);
  reader.input(typed);
  return reader.getNumberValue();
}
