import type { JosaOption } from './josa.js';

/**
 * The Korean wording of the rules: Laravel-Lang's `ko/validation.php` of the Laravel 5 era, with the
 * particle after a name written as both forms in braces (`:attribute{은/는}`), which the renderer resolves
 * for the name it puts there (`프로필 주소는`, `비밀번호가`). Rules the pack lacks keep the project's own
 * wording. No particle follows a number (`:min 이상이어야`), since a digit's reading decides it.
 */
export const KO: Record<string, string> = {
  required: ':attribute 필드는 필수입니다.',
  required_if: ':other{이/가} :value일 때 :attribute 필드는 필수입니다.',
  string: ':attribute{은/는} 문자열이어야 합니다.',
  integer: ':attribute{은/는} 정수여야 합니다.',
  boolean: ':attribute{은/는} true 또는 false여야 합니다.',
  array: ':attribute{은/는} 배열이어야 합니다.',
  object: ':attribute{은/는} 객체여야 합니다.',
  file: ':attribute{은/는} 파일이어야 합니다.',
  accepted: ':attribute에 동의해야 합니다.',
  email: ':attribute{은/는} 유효한 이메일 주소여야 합니다.',
  regex: ':attribute 형식이 유효하지 않습니다.',
  in: '선택된 :attribute{은/는} 유효하지 않습니다.',
  exists: '선택된 :attribute{은/는} 유효하지 않습니다.',
  unique: ':attribute{은/는} 이미 사용 중입니다.',
  'max.string': ':attribute{은/는} :max자보다 길 수 없습니다.',
  'max.numeric': ':attribute{은/는} :max보다 클 수 없습니다.',
  'max.file': ':attribute{은/는} :max킬로바이트보다 클 수 없습니다.',
  'max.array': ':attribute{은/는} :max개보다 많을 수 없습니다.',
  'min.string': ':attribute{은/는} 최소 :min자 이상이어야 합니다.',
  'min.numeric': ':attribute{은/는} :min 이상이어야 합니다.',
  'min.array': ':attribute{은/는} 최소 :min개의 항목이 있어야 합니다.',
  image: ':attribute{은/는} 이미지여야 합니다.',
  mimes: ':attribute{은/는} 다음의 파일 형식이어야 합니다: :values.',
  dimensions: ':attribute의 이미지 크기가 유효하지 않습니다.',
  password_common: ':attribute{은/는} 너무 흔한 비밀번호입니다.',
  current_password: ':attribute{이/가} 올바르지 않습니다.',
  provider_linked: '다른 :provider 계정이 이미 연결되어 있습니다. 먼저 연결을 해제하세요.',
  last_sign_in_method:
    ':provider 계정은 유일한 로그인 수단입니다. 먼저 비밀번호를 설정하거나 다른 계정을 연결하세요.',
  second_factor_code: ':attribute{이/가} 올바르지 않습니다.',
  second_factor_enabled: '2단계 인증이 이미 켜져 있습니다. 먼저 끄세요.',
  second_factor_not_enabled: '2단계 인증이 켜져 있지 않습니다.',
  second_factor_setup: '먼저 인증 앱을 설정하세요.',
  reauth_second_factor:
    '이 변경에는 두 번째 인증 수단이 필요합니다. 비밀번호와 인증 앱 코드 또는 복구 코드로, 또는 패스키로 다시 인증하세요(user/reauth).',
  second_factor_locked:
    '잘못된 코드가 너무 많아 인증 앱이 잠겼습니다. 복구 코드를 쓰거나 패스키로 로그인하세요.',
  deletion_not_scheduled: '이 계정은 삭제가 예약되어 있지 않습니다.',
  passkey_incorrect: ':attribute{은/는} 이 계정의 패스키를 증명하지 않습니다. 새 옵션을 요청하세요.',
  passkey_invalid: ':attribute{을/를} 확인할 수 없습니다. 새 옵션을 요청한 뒤 다시 시도하세요.',
  passkey_registered: '이미 등록된 패스키입니다.',
  passkeys_max: '패스키는 최대 :max개까지 추가할 수 있습니다.',
  last_passkey:
    '이 패스키는 유일한 로그인 수단입니다. 먼저 비밀번호를 설정하거나 다른 계정을 연결하거나 패스키를 추가하세요.',
  timezone: ':attribute{은/는} 올바른 시간대여야 합니다.',
  url: ':attribute 형식이 유효하지 않습니다.',
  date: ':attribute{은/는} 올바른 날짜가 아닙니다.',
  after: ':attribute{은/는} :date 이후 날짜여야 합니다.',
  consent_required: ':attribute 동의는 필수 항목이라 철회할 수 없습니다. 철회하려면 계정을 삭제하세요.',
  idempotency_reused: ':attribute{은/는} 이미 다른 요청에 사용되었습니다.',
  before_or_equal_today: ':attribute{은/는} 오늘 또는 그 이전 날짜여야 합니다.',
  phone_invalid: ':attribute{이/가} 올바른 전화번호가 아닙니다.',
  phone_not_mobile: ':attribute{은/는} 휴대폰 번호여야 합니다.',
  phone_country: ':attribute{은/는} 인증 문자를 보낼 수 있는 국가의 휴대폰 번호여야 합니다.',
  phone_code: ':attribute{이/가} 올바르지 않거나 만료되었습니다. 새 코드를 요청하세요.',
  webhook_target: ':attribute{은/는} 웹훅을 받을 수 없는 주소입니다: :detail.',
  after_or_equal: ':attribute{은/는} :value 또는 그 이후 날짜여야 합니다.',
  guardian_not_needed: '이 계정에는 보호자 동의가 필요하지 않습니다.',
  guardian_email_own: ':attribute{은/는} 계정 본인의 주소가 아닌 보호자의 주소여야 합니다.',
  identity_not_adult: ':attribute{은/는} 성인(만 19세 이상)의 본인인증이 아닙니다.',
  identity_not_verified: '본인인증이 완료되지 않았습니다.',
  identity_used: ':attribute{은/는} 이미 사용되었습니다.',
  identity_expired: ':attribute{이/가} 만료되었습니다. 본인인증을 다시 시작하세요.',
  identity_mismatch: '이 계정은 다른 사람으로 본인인증되어 있습니다.',
  identity_not_guardian: ':attribute{은/는} 동의한 법정대리인의 본인인증이 아닙니다.',
  identity_birth_date_implausible:
    '본인인증 결과의 생년월일이 올바르지 않습니다(1900년 이전, 오늘 이후이거나 날짜가 아님).',
  identity_time_implausible: '본인인증 결과의 인증 시각이 미래입니다.',
};

/** The particles a Korean template may ask for after a name. */
export const KO_PARTICLES: readonly JosaOption[] = ['이/가', '을/를', '은/는', '와/과', '으로/로'];

/**
 * The names Korean readers see for the fields: the words the web pages use for them (`프로필 주소`, not the
 * developers' "slug"), and plain Korean for the app's other fields.
 */
export const KO_ATTRIBUTES: Record<string, string> = {
  email: '이메일',
  birth_date: '생년월일',
  guardian_email: '보호자 이메일',
  agree: '동의 여부',
  identity_verification_id: '본인인증',
  username: '사용자 이름',
  slug: '프로필 주소',
  password: '비밀번호',
  current_password: '현재 비밀번호',
  gender: '성별',
  type: '가입 유형',
  user_agreement: '이용약관',
  profile_picture: '프로필 사진',
  bio: '자기소개',
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
  phone: '휴대폰 번호',
  purpose: '용도',
  recovery_code: '복구 코드',
  challenge: '인증 요청',
  totp: '2단계 인증',
  passkey: '패스키',
  passkey_response: '패스키 응답',
  passkey_challenge_id: '패스키 챌린지 ID',
  response: '응답',
  challenge_id: '챌린지 ID',
  name: '이름',
  id: 'ID',
  channel: '변경 경로',
  version: '버전',
  starts_at: '시작 시각',
  ends_at: '종료 시각',
  'Idempotency-Key': '멱등성 키',
  // The console's fields (staff's search, reveal and actions).
  reason: '사유',
  field: '항목',
  query: '검색어',
  mode: '검색 방식',
  session_id: '세션',
  // The access records' filter and the monthly review.
  staff: '직원',
  cli: '명령 실행 사용자',
  subject: '대상 사용자',
  action: '작업',
  from: '시작 시점',
  until: '종료 시점',
  month: '검토 월',
  // The seeded consent documents, by their titles on the pages (less the closing 동의, which the messages add).
  terms: '서비스 이용약관',
  privacy: '개인정보 수집·이용',
  marketing_email: '광고성 정보 이메일 수신',
  marketing_push: '광고성 정보 앱 푸시 수신',
  marketing_sms: '광고성 정보 문자(SMS) 수신',
  night_push: '야간(21시~08시) 광고성 푸시 수신',
};

/** Register's `consent_<key>` fields: the document's consent (`광고성 정보 이메일 수신 동의`). */
const CONSENT_PREFIX = 'consent_';

/** A provider's credential fields, named for any provider: `alpha_user_id` → `alpha 사용자 ID`. */
const KO_PROVIDER_SUFFIXES: ReadonlyArray<[suffix: string, name: string]> = [
  ['_user_id', '사용자 ID'],
  ['_access_token', '액세스 토큰'],
];

export function koreanAttributeName(field: string): string | undefined {
  const known = KO_ATTRIBUTES[field];
  if (known !== undefined) return known;
  if (field.startsWith(CONSENT_PREFIX)) {
    const document = field.slice(CONSENT_PREFIX.length);
    return `${KO_ATTRIBUTES[document] ?? document.replaceAll('_', ' ')} 동의`;
  }
  for (const [suffix, name] of KO_PROVIDER_SUFFIXES) {
    if (field.endsWith(suffix) && field.length > suffix.length)
      return `${field.slice(0, -suffix.length)} ${name}`;
  }
  return undefined;
}
