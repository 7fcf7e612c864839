/**
 * The operator console's words (/console, docs/console.md), in both languages; i18n.ts merges them into the
 * pages' messages. The console's refusals are here too: the console pages choose them by `data.status`.
 */
export const CONSOLE_ENGLISH = {
  'console.name': 'Console',
  'console.home.title': 'Operator console',
  'console.login.title': 'Staff sign-in',
  'console.login.lead':
    'For the people who run the service. Your password and your second factor, every time.',
  'console.enroll.title': 'Staff enrollment',
  'console.enroll.lead':
    'Set your password, then choose your second factor: a passkey, or an authenticator app and its code.',
  'console.enroll.secret': 'Authenticator key',
  'console.enroll.open_app': 'Open in an authenticator app',
  'console.enroll.done': 'You are enrolled. Sign in with your password and your second factor.',
  'console.enroll.factor': 'Second factor',
  'console.enroll.factor_totp': 'Authenticator app',
  'console.enroll.factor_passkey': 'Passkey',
  'console.action.sign_in_passkey': 'Sign in with a passkey',
  'console.passkey_cancelled': 'No passkey was used. Try again.',
  'console.enroll.who': 'Enrolling {email} as {role}.',
  'console.field.code': 'Authenticator code',
  'console.action.enroll': 'Enroll',
  'console.action.sign_in': 'Sign in',
  'console.action.sign_out': 'Sign out',
  'console.nav.home': 'Home',
  'console.signed_in_as': 'Signed in as',
  'console.role': 'Role',
  'console.permissions': 'May',
  'console.error.sign_in':
    'The email, password or second factor is wrong. Five wrong tries in a row lock the account for a while: wait, or ask an admin to unlock it.',
  'console.error.csrf': 'The page is out of date. Reload it and try again.',
  'console.error.network': 'The console cannot be used from this network.',
  'console.error.link_used': 'This enrollment link has been used. Sign in instead.',
  'console.error.link_expired': 'This enrollment link has expired. Ask an admin for a new one.',
};

export const CONSOLE_KOREAN: Record<keyof typeof CONSOLE_ENGLISH, string> = {
  'console.name': '콘솔',
  'console.home.title': '운영자 콘솔',
  'console.login.title': '운영자 로그인',
  'console.login.lead': '서비스 운영자 전용입니다. 매번 비밀번호와 2단계 인증을 거칩니다.',
  'console.enroll.title': '운영자 등록',
  'console.enroll.lead': '비밀번호를 정한 뒤 2단계 인증을 고르세요: 패스키, 또는 인증 앱과 그 코드.',
  'console.enroll.secret': '인증 앱 키',
  'console.enroll.open_app': '인증 앱에서 열기',
  'console.enroll.done': '등록되었습니다. 비밀번호와 2단계 인증으로 로그인하세요.',
  'console.enroll.factor': '2단계 인증',
  'console.enroll.factor_totp': '인증 앱',
  'console.enroll.factor_passkey': '패스키',
  'console.action.sign_in_passkey': '패스키로 로그인',
  'console.passkey_cancelled': '패스키를 사용하지 않았습니다. 다시 시도하세요.',
  'console.enroll.who': '{email} 님을 {role} 역할로 등록합니다.',
  'console.field.code': '인증 코드',
  'console.action.enroll': '등록',
  'console.action.sign_in': '로그인',
  'console.action.sign_out': '로그아웃',
  'console.nav.home': '홈',
  'console.signed_in_as': '로그인한 운영자',
  'console.role': '역할',
  'console.permissions': '권한',
  'console.error.sign_in':
    '이메일, 비밀번호 또는 2단계 인증이 올바르지 않습니다. 연속 5회 틀리면 계정이 잠시 잠깁니다. 기다리거나 관리자에게 잠금 해제를 요청하세요.',
  'console.error.csrf': '페이지가 오래되었습니다. 새로 고친 뒤 다시 시도하세요.',
  'console.error.network': '이 네트워크에서는 콘솔을 사용할 수 없습니다.',
  'console.error.link_used': '이미 사용한 등록 링크입니다. 로그인하세요.',
  'console.error.link_expired': '등록 링크가 만료되었습니다. 관리자에게 새 링크를 요청하세요.',
};
