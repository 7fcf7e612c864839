import type { FastifyRequest } from 'fastify';
import { cookieValue } from '../http/session-cookie.js';
import { type Locale, preferredLocale } from '../validation/messages.js';

/** The language switch remembers the choice in this (readable, harmless) cookie. */
export const LANG_COOKIE = 'accounts_lang';

const english = {
  'site.name': 'Accounts',
  'nav.home': 'Home',
  'nav.signup': 'Sign up',
  'nav.login': 'Log in',
  'nav.profile': 'Profile',
  'nav.docs': 'API docs',
  'lang.label': 'Language',
  'home.title': 'Welcome',
  'home.lead': 'Create an account, or log in to see and edit your profile.',
  'signup.title': 'Sign up',
  'login.title': 'Log in',
  'profile.title': 'Your profile',
  'verify.title': 'Verify your email',
  'reset.title': 'Choose a new password',
  'forgot.title': 'Forgot your password?',
  'forgot.lead': 'Enter the email address of your account. We will mail it a link to choose a new password.',
  'forgot.back': 'Back to log in',
  'cancel.title': 'Keep your account',
  'field.email': 'Email',
  'field.username': 'Username',
  'field.slug': 'Profile address (slug)',
  'field.gender': 'Gender',
  'field.gender.female': 'Female',
  'field.gender.male': 'Male',
  'field.password': 'Password',
  'field.new_password': 'New password',
  'field.current_password': 'Current password',
  'field.user_agreement': 'I accept the terms of use',
  'field.profile_picture': 'Profile picture (JPEG, PNG or GIF)',
  'field.bio': 'About you',
  'field.preview': 'Preview of the chosen picture',
  'action.signup': 'Create account',
  'action.login': 'Log in',
  'action.save': 'Save profile',
  'action.upload': 'Change picture',
  'action.signout': 'Sign out',
  'action.revoke': 'Revoke',
  'action.verify': 'Verify my email',
  'action.cancel_deletion': 'Keep my account',
  'action.reset': 'Set new password',
  'action.send_reset': 'Send the link',
  'status.checking': 'Checking…',
  'status.available': 'Available.',
  'status.saved': 'Saved.',
  'status.picture_saved': 'Picture changed.',
  'status.verified': 'Your email address is verified. Thank you!',
  'status.deletion_cancelled': 'Your account is kept and will not be deleted. Log in again on your devices.',
  'status.working': 'Working…',
  'status.revoked': 'Session revoked.',
  'status.reset_sent':
    'If an account uses this address, a link to choose a new password is on its way. Check your inbox and spam folder.',
  'status.email_sent': 'Saved. We sent a verification link to {email}: open it to confirm the new address.',
  'error.network': 'The service could not be reached. Please try again.',
  'error.generic': 'Something went wrong. Please try again.',
  'error.no_token': 'This link has no token. Open the link from the mail again.',
  'profile.sessions': 'Signed-in sessions',
  'profile.current': 'this browser',
  'profile.created': 'signed in',
  'profile.last_used': 'last used',
  'profile.unknown_agent': 'unknown device',
  'profile.picture': 'Profile picture',
  'profile.no_picture': 'No picture yet.',
  'profile.edit': 'Edit profile',
  'profile.email_hint': 'A new address is confirmed through a link we mail to it.',
  'profile.reauth_hint': 'Changing your email needs your current password.',
  'signup.have_account': 'Already have an account?',
  'login.no_account': 'No account yet?',
  'login.forgot': 'Forgot your password?',
} as const;

export type MessageKey = keyof typeof english;

const korean: Record<MessageKey, string> = {
  'site.name': '계정',
  'nav.home': '홈',
  'nav.signup': '회원가입',
  'nav.login': '로그인',
  'nav.profile': '프로필',
  'nav.docs': 'API 문서',
  'lang.label': '언어',
  'home.title': '환영합니다',
  'home.lead': '계정을 만들거나, 로그인하여 프로필을 확인하고 수정하세요.',
  'signup.title': '회원가입',
  'login.title': '로그인',
  'profile.title': '내 프로필',
  'verify.title': '이메일 인증',
  'reset.title': '새 비밀번호 설정',
  'forgot.title': '비밀번호를 잊으셨나요?',
  'forgot.lead': '계정의 이메일 주소를 입력하세요. 새 비밀번호를 설정할 수 있는 링크를 메일로 보내 드립니다.',
  'forgot.back': '로그인으로 돌아가기',
  'cancel.title': '계정 유지하기',
  'field.email': '이메일',
  'field.username': '사용자 이름',
  'field.slug': '프로필 주소 (슬러그)',
  'field.gender': '성별',
  'field.gender.female': '여성',
  'field.gender.male': '남성',
  'field.password': '비밀번호',
  'field.new_password': '새 비밀번호',
  'field.current_password': '현재 비밀번호',
  'field.user_agreement': '이용약관에 동의합니다',
  'field.profile_picture': '프로필 사진 (JPEG, PNG, GIF)',
  'field.bio': '자기소개',
  'field.preview': '선택한 사진 미리보기',
  'action.signup': '계정 만들기',
  'action.login': '로그인',
  'action.save': '프로필 저장',
  'action.upload': '사진 변경',
  'action.signout': '로그아웃',
  'action.revoke': '해지',
  'action.verify': '이메일 인증하기',
  'action.cancel_deletion': '계정 유지하기',
  'action.reset': '새 비밀번호 저장',
  'action.send_reset': '링크 보내기',
  'status.checking': '확인 중…',
  'status.available': '사용할 수 있습니다.',
  'status.saved': '저장되었습니다.',
  'status.picture_saved': '사진이 변경되었습니다.',
  'status.verified': '이메일 주소가 인증되었습니다. 감사합니다!',
  'status.deletion_cancelled': '계정이 유지되며 삭제되지 않습니다. 기기에서 다시 로그인해 주세요.',
  'status.working': '처리 중…',
  'status.revoked': '세션이 해지되었습니다.',
  'status.reset_sent':
    '이 주소를 쓰는 계정이 있다면 새 비밀번호를 설정할 링크를 보냈습니다. 받은편지함과 스팸함을 확인해 주세요.',
  'status.email_sent':
    '저장되었습니다. {email}(으)로 인증 링크를 보냈습니다. 링크를 열어 새 주소를 확인해 주세요.',
  'error.network': '서비스에 연결할 수 없습니다. 다시 시도해 주세요.',
  'error.generic': '문제가 발생했습니다. 다시 시도해 주세요.',
  'error.no_token': '링크에 토큰이 없습니다. 메일의 링크를 다시 열어 주세요.',
  'profile.sessions': '로그인된 세션',
  'profile.current': '이 브라우저',
  'profile.created': '로그인',
  'profile.last_used': '최근 사용',
  'profile.unknown_agent': '알 수 없는 기기',
  'profile.picture': '프로필 사진',
  'profile.no_picture': '아직 사진이 없습니다.',
  'profile.edit': '프로필 수정',
  'profile.email_hint': '새 주소는 그 주소로 보내는 링크로 확인합니다.',
  'profile.reauth_hint': '이메일을 바꾸려면 현재 비밀번호가 필요합니다.',
  'signup.have_account': '이미 계정이 있으신가요?',
  'login.no_account': '아직 계정이 없으신가요?',
  'login.forgot': '비밀번호를 잊으셨나요?',
};

export const MESSAGES: Record<Locale, Record<MessageKey, string>> = { en: english, ko: korean };

const isLocale = (value: unknown): value is Locale => value === 'en' || value === 'ko';

/**
 * The page's language: `?lang=` (the switch's links), then the remembered choice, then Accept-Language —
 * the same negotiation the API's messages use (preferredLocale), so page and 422 texts agree.
 */
export function pageLocale(request: FastifyRequest): { locale: Locale; chosen: boolean } {
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.lang;
  if (isLocale(fromQuery)) return { locale: fromQuery, chosen: true };
  const remembered = cookieValue(request.headers.cookie, LANG_COOKIE);
  if (isLocale(remembered)) return { locale: remembered, chosen: false };
  return { locale: preferredLocale(request.headers['accept-language']), chosen: false };
}
