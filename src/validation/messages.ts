import type { FieldFailures, RuleFailure } from '../errors.js';

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
};

/**
 * The Korean wording of the same rules: Laravel-Lang's `ko/validation.php` of the Laravel 5 era, word for word
 * (particles written `은(는)` as the pack writes them, since they depend on the attribute), with the app's
 * attribute names. Rules the pack lacks (password_common, current_password, the provider rules) keep the
 * project's own wording, written with the pack's particles.
 */
const KO: Record<string, string> = {
  required: ':attribute 필드는 필수입니다.',
  required_if: ':other이(가) :value 일 때 :attribute 필드는 필수입니다.',
  string: ':attribute은(는) 문자열이어야 합니다.',
  integer: ':attribute은(는) 정수여야 합니다.',
  boolean: ':attribute은(는) true 또는 false 이어야 합니다.',
  array: ':attribute은(는) 배열이어야 합니다.',
  object: ':attribute은(는) 객체여야 합니다.',
  file: ':attribute은(는) 파일이어야 합니다.',
  accepted: ':attribute을(를) 동의해야 합니다.',
  email: ':attribute은(는) 유효한 이메일 주소여야 합니다.',
  regex: ':attribute 형식이 유효하지 않습니다.',
  in: '선택된 :attribute은(는) 유효하지 않습니다.',
  exists: '선택된 :attribute은(는) 유효하지 않습니다.',
  unique: ':attribute은(는) 이미 사용 중입니다.',
  'max.string': ':attribute은(는) :max자보다 클 수 없습니다.',
  'max.numeric': ':attribute은(는) :max보다 클 수 없습니다.',
  'max.file': ':attribute은(는) :max킬로바이트보다 클 수 없습니다.',
  'max.array': ':attribute은(는) :max개보다 많을 수 없습니다.',
  'min.string': ':attribute은(는) 최소한 :min자이어야 합니다.',
  'min.numeric': ':attribute은(는) 최소한 :min이어야 합니다.',
  'min.array': ':attribute은(는) 최소한 :min개의 항목이 있어야 합니다.',
  image: ':attribute은(는) 이미지여야 합니다.',
  mimes: ':attribute은(는) 다음의 파일 형식이어야 합니다: :values.',
  dimensions: ':attribute은(는) 유효하지 않는 이미지 크기입니다.',
  password_common: ':attribute은(는) 너무 흔한 비밀번호입니다.',
  current_password: ':attribute이(가) 올바르지 않습니다.',
  provider_linked: '다른 :provider 계정이 이미 연결되어 있습니다. 먼저 연결을 해제하세요.',
  last_sign_in_method:
    ':provider 계정은 유일한 로그인 수단입니다. 먼저 비밀번호를 설정하거나 다른 계정을 연결하세요.',
  second_factor_code: ':attribute이(가) 올바르지 않습니다.',
  second_factor_enabled: '2단계 인증이 이미 켜져 있습니다. 먼저 끄세요.',
  second_factor_not_enabled: '2단계 인증이 켜져 있지 않습니다.',
  second_factor_setup: '먼저 인증 앱을 설정하세요.',
  second_factor_locked:
    '잘못된 코드가 너무 많아 인증 앱이 잠겼습니다. 복구 코드를 쓰거나 패스키로 로그인하세요.',
  deletion_not_scheduled: '이 계정은 삭제가 예약되어 있지 않습니다.',
  passkey_incorrect: ':attribute은(는) 이 계정의 패스키를 증명하지 않습니다. 새 옵션을 요청하세요.',
  passkey_invalid: ':attribute을(를) 확인할 수 없습니다. 새 옵션을 요청한 뒤 다시 시도하세요.',
  passkey_registered: '이미 등록된 패스키입니다.',
  passkeys_max: '패스키는 최대 :max개까지 추가할 수 있습니다.',
  last_passkey:
    '이 패스키는 유일한 로그인 수단입니다. 먼저 비밀번호를 설정하거나 다른 계정을 연결하거나 패스키를 추가하세요.',
  timezone: ':attribute은(는) 올바른 시간대 이어야 합니다.',
  url: ':attribute 형식이 유효하지 않습니다.',
  date: ':attribute은(는) 올바른 날짜가 아닙니다.',
  after: ':attribute은(는) :date 이후 날짜여야 합니다.',
  consent_required: ':attribute 동의는 필수 항목이라 철회할 수 없습니다. 철회하려면 계정을 삭제하세요.',
  idempotency_reused: ':attribute은(는) 이미 다른 요청에 사용되었습니다.',
};

const KO_ATTRIBUTES: Record<string, string> = {
  email: '이메일',
  username: '사용자 이름',
  slug: '슬러그',
  password: '비밀번호',
  current_password: '현재 비밀번호',
  gender: '성별',
  type: '가입 유형',
  user_agreement: '이용약관 동의',
  profile_picture: '프로필 사진',
  bio: '소개',
  device_id: '기기 ID',
  platform: '플랫폼',
  push_token: '푸시 토큰',
  push_enabled: '푸시 알림 허용',
  app_version: '앱 버전',
  os_version: 'OS 버전',
  locale: '언어',
  timezone: '시간대',
  order: '정렬',
  limit: '개수',
  cursor: '커서',
  exclude: '제외 목록',
  provider: '소셜 계정',
  text: '내용',
  images: '이미지',
  token: '토큰',
  code: '인증 코드',
  recovery_code: '복구 코드',
  challenge: '인증 요청',
  totp: '2단계 인증',
  passkey: '패스키',
  passkey_response: '패스키 응답',
  passkey_challenge_id: '패스키 챌린지 ID',
  response: '응답',
  challenge_id: '챌린지 ID',
  name: '이름',
};

/** Laravel's attribute name: the field name with `_` turned into spaces (`user_agreement` → `user agreement`). */
function attributeName(field: string, locale: Locale): string {
  if (locale === 'ko') return KO_ATTRIBUTES[field] ?? field.replaceAll('_', ' ');
  return field.replaceAll('_', ' ');
}

export function renderFailure(field: string, failure: RuleFailure, locale: Locale): string {
  const table = locale === 'ko' ? KO : EN;
  const template = table[failure.rule] ?? EN[failure.rule] ?? 'The :attribute is invalid.';
  const params: Record<string, string> = { attribute: attributeName(field, locale) };
  for (const [key, value] of Object.entries(failure.params ?? {})) {
    params[key] = key === 'other' ? attributeName(String(value), locale) : String(value);
  }
  // Longest names first, so `:values` is never read as `:value` + "s".
  const keys = Object.keys(params).sort((a, b) => b.length - a.length);
  return keys.reduce((message, key) => message.replaceAll(`:${key}`, params[key] as string), template);
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
