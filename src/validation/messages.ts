import type { FieldFailures, RuleFailure } from '../errors.js';
import { type JosaOption, josa } from './josa.js';
import { KO, KO_PARTICLES, koreanAttributeName } from './messages-ko.js';

export type Locale = 'en' | 'ko';

/** Laravel 5's English wording (resources/lang/en/validation.php), which the mobile apps were built against. */
const EN: Record<string, string> = {
  required: 'The :attribute field is required.',
  required_if: 'The :attribute field is required when :other is :value.',
  string: 'The :attribute must be a string.',
  integer: 'The :attribute must be an integer.',
  boolean: 'The :attribute field must be true or false.',
  array: 'The :attribute must be an array.',
  object: 'The :attribute must be an object.',
  file: 'The :attribute must be a file.',
  accepted: 'The :attribute must be accepted.',
  email: 'The :attribute must be a valid email address.',
  regex: 'The :attribute format is invalid.',
  in: 'The selected :attribute is invalid.',
  exists: 'The selected :attribute is invalid.',
  unique: 'The :attribute has already been taken.',
  'max.string': 'The :attribute may not be greater than :max characters.',
  'max.numeric': 'The :attribute may not be greater than :max.',
  'max.file': 'The :attribute may not be greater than :max kilobytes.',
  'max.array': 'The :attribute may not have more than :max items.',
  'min.string': 'The :attribute must be at least :min characters.',
  'min.numeric': 'The :attribute must be at least :min.',
  'min.array': 'The :attribute must have at least :min items.',
  image: 'The :attribute must be an image.',
  mimes: 'The :attribute must be a file of type: :values.',
  dimensions: 'The :attribute has invalid image dimensions.',
  password_common: 'The :attribute is too common.',
  current_password: 'The :attribute is incorrect.',
  provider_linked: 'Another :provider account is already linked; unlink it first.',
  last_sign_in_method:
    'The :provider account is the only way to sign in; set a password or link another provider first.',
  second_factor_code: 'The :attribute is invalid.',
  second_factor_enabled: 'Two-factor authentication is already enabled; disable it first.',
  second_factor_not_enabled: 'Two-factor authentication is not enabled.',
  second_factor_setup: 'Set up the authenticator first.',
  reauth_second_factor:
    'This change needs a second factor: re-authenticate (user/reauth) with the password and an authenticator or recovery code, or with a passkey.',
  second_factor_locked:
    'Too many wrong codes: the authenticator is locked. Use a recovery code, or sign in with a passkey.',
  deletion_not_scheduled: 'No deletion of this account is scheduled.',
  passkey_incorrect: 'The :attribute does not prove a passkey of this account; ask for new options.',
  passkey_invalid: 'The :attribute could not be verified; ask for new options and try again.',
  passkey_registered: 'This passkey is already registered.',
  passkeys_max: 'No more than :max passkeys may be added.',
  last_passkey:
    'This passkey is the only way to sign in; set a password, link a provider or add another passkey first.',
  timezone: 'The :attribute must be a valid zone.',
  url: 'The :attribute format is invalid.',
  date: 'The :attribute is not a valid date.',
  after: 'The :attribute must be a date after :date.',
  consent_required:
    'The :attribute consent is required and cannot be withdrawn; to withdraw it, delete the account.',
  idempotency_reused: 'The :attribute was already used for a different request.',
  before_or_equal_today: 'The :attribute must be a date before or equal to today.',
  after_or_equal: 'The :attribute must be a date after or equal to :value.',
  guardian_not_needed: "This account needs no guardian's consent.",
  guardian_email_own: "The :attribute must be the guardian's address, not the account's own.",
  identity_not_adult: 'The :attribute does not show an adult (19 or over).',
  identity_not_verified: 'The identity verification did not succeed.',
  identity_used: 'The :attribute has already been used.',
  identity_expired: 'The :attribute has expired. Start a new verification.',
  identity_mismatch: 'This account was verified as another person.',
  identity_not_guardian: 'The :attribute does not show the guardian who consented.',
  identity_birth_date_implausible:
    'The identity verification gives a birth date that cannot be right (before 1900, after today or no date).',
  identity_time_implausible: 'The identity verification gives a verification time in the future.',
  phone_invalid: 'The :attribute is not a valid phone number.',
  phone_not_mobile: 'The :attribute must be a mobile number.',
  phone_country: 'The :attribute must be a mobile number of a country codes can be sent to.',
  phone_code: 'The :attribute is invalid or has expired; ask for a new one.',
  webhook_target: 'The :attribute cannot receive webhooks: :detail.',
};

/** Each rule's wording in `locale` (with `:name` placeholders): the pages recognise the API's messages by it. */
export function ruleTemplates(locale: Locale): Record<string, string> {
  return locale === 'ko' ? { ...EN, ...KO } : { ...EN };
}

/**
 * Laravel's attribute name: the field name with `_` turned into spaces (`user_agreement` → `user agreement`);
 * in Korean, the name the pages use for the field.
 */
function attributeName(field: string, locale: Locale): string {
  if (locale === 'ko') return koreanAttributeName(field) ?? field.replaceAll('_', ' ');
  return field.replaceAll('_', ' ');
}

const isParticle = (option: string): option is JosaOption =>
  (KO_PARTICLES as readonly string[]).includes(option);

/** `:name{은/는}` → the value of `name` with the particle its last syllable takes. */
function withParticles(template: string, params: Record<string, string>): string {
  return template.replace(/:([A-Za-z_]+)\{([^}]+)\}/g, (whole, key: string, option: string) => {
    const value = params[key];
    return value !== undefined && isParticle(option) ? josa(value, option) : whole;
  });
}

const NAMES_A_FIELD = new Set(['other', 'date']);

export function renderFailure(field: string, failure: RuleFailure, locale: Locale): string {
  const table = locale === 'ko' ? KO : EN;
  const template = table[failure.rule] ?? EN[failure.rule] ?? 'The :attribute is invalid.';
  const params: Record<string, string> = { attribute: attributeName(field, locale) };
  for (const [key, value] of Object.entries(failure.params ?? {})) {
    // `other` and `date` name another field (`starts_at`), shown by its name like the attribute.
    params[key] = NAMES_A_FIELD.has(key) ? attributeName(String(value), locale) : String(value);
  }
  // Longest names first, so `:values` is never read as `:value` + "s".
  const keys = Object.keys(params).sort((a, b) => b.length - a.length);
  return keys.reduce(
    (message, key) => message.replaceAll(`:${key}`, params[key] as string),
    withParticles(template, params),
  );
}

export function renderFailures(failures: FieldFailures, locale: Locale): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(failures).map(([field, list]) => [
      field,
      list.map((f) => renderFailure(field, f, locale)),
    ]),
  );
}

/**
 * The language the client prefers among those we speak: Korean when `Accept-Language` ranks `ko` above
 * `en`, English otherwise (the default the apps were built against).
 */
export function preferredLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'en';
  let best: { locale: Locale; q: number } | undefined;
  for (const part of acceptLanguage.split(',')) {
    const [tag = '', ...attributes] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (primary !== 'ko' && primary !== 'en') continue;
    const qAttribute = attributes.map((a) => a.trim()).find((a) => a.startsWith('q='));
    const q = qAttribute ? Number(qAttribute.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    if (!best || q > best.q) best = { locale: primary, q };
  }
  return best?.locale ?? 'en';
}
