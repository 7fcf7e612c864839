/**
 * The strings of signing up and in without a password (a code by email, a mobile number and its code by
 * text message) and of the profile's mobile number card, in both languages (i18n.ts merges them into each
 * page's messages). Korean particles are written for the word before them.
 */
export const SIGNIN_ENGLISH = {
  'signup.use_code': 'Email me a code instead of a password',
  'signup.use_password': 'Use a password instead',
  'signup.code_sent':
    'Unless an account uses this address already, a 6-digit code is on its way to it. It works for 10 minutes.',
  'signup.code_hint':
    'No password needed: you log in with a code we send you, and can set a password later on your profile.',
  'signup.resend_code': 'Send a new code',
  'field.signup_code': 'Code from the email',
  'field_error.signup_code.required': 'Enter the 6-digit code from the email.',
  'field_error.signup_code':
    'This code is wrong, used or expired. Enter the newest code from the email, or ask for a new one.',
  'login.phone': 'Log in with a mobile number',
  'login.phone_send': 'Text me a code',
  'login.phone_sent':
    'If an account uses this number, a 6-digit code is on its way by text message. Enter it below.',
  'login.phone_code_wrong':
    'The code is wrong or has expired. Enter the newest code from the text message, or ask for a new one.',
  'field.phone': 'Mobile number',
  'field.phone_code': 'Code from the text message',
  'field.new_phone': 'New mobile number',
  'field_error.phone.required': 'Enter your mobile number.',
  'field_error.phone.phone_not_mobile': 'This is not a mobile number. Enter the number of a mobile phone.',
  'field_error.phone.phone_country': 'Codes are texted only to mobile numbers of the countries we serve.',
  'field_error.phone': 'Enter a Korean mobile number, such as 010-1234-5678.',
  'field_error.phone_code.required': 'Enter the 6-digit code from the text message.',
  'field_error.phone_code':
    'The code is wrong or has expired. Enter the newest code from the text message, or ask for a new one.',
  'error.phone_in_use': 'Another account already uses this mobile number.',
  'error.sms_not_configured': 'Text messages cannot be sent from this server. Use another way to log in.',
  'phone.title': 'Mobile number',
  'phone.lead':
    'With a verified number you can log in by a code sent by text message. Adding, changing or removing it first asks you to confirm it is you.',
  'phone.none': 'No mobile number yet.',
  'phone.current': 'Your number: {phone}',
  'phone.verified': 'verified',
  'phone.unverified': 'not verified',
  'phone.sent': 'A 6-digit code is on its way to {phone} by text message.',
  'action.phone_send': 'Text me a code',
  'action.phone_verify': 'Verify the number',
  'action.phone_remove': 'Remove the number',
  'status.phone_verified': 'Your mobile number is verified: you can log in with it.',
  'status.phone_removed': 'Your mobile number is removed.',
} as const;

export type SignInMessageKey = keyof typeof SIGNIN_ENGLISH;

export const SIGNIN_KOREAN: Record<SignInMessageKey, string> = {
  'signup.use_code': '비밀번호 대신 이메일로 코드 받기',
  'signup.use_password': '비밀번호로 가입하기',
  'signup.code_sent': '이 주소를 쓰는 계정이 없다면 6자리 코드를 보냈습니다. 10분 동안 사용할 수 있습니다.',
  'signup.code_hint':
    '비밀번호 없이 보내 드리는 코드로 로그인합니다. 비밀번호는 나중에 프로필에서 설정할 수 있습니다.',
  'signup.resend_code': '코드 다시 받기',
  'field.signup_code': '이메일로 받은 코드',
  'field_error.signup_code.required': '이메일로 받은 6자리 코드를 입력해 주세요.',
  'field_error.signup_code':
    '코드가 맞지 않거나 이미 쓰였거나 시간이 지났습니다. 가장 최근 메일의 코드를 입력하거나 새 코드를 받아 주세요.',
  'login.phone': '휴대전화 번호로 로그인',
  'login.phone_send': '문자로 코드 받기',
  'login.phone_sent': '이 번호를 쓰는 계정이 있다면 6자리 코드를 문자로 보냈습니다. 아래에 입력해 주세요.',
  'login.phone_code_wrong':
    '코드가 맞지 않거나 시간이 지났습니다. 가장 최근 문자의 코드를 입력하거나 새 코드를 받아 주세요.',
  'field.phone': '휴대전화 번호',
  'field.phone_code': '문자로 받은 코드',
  'field.new_phone': '새 휴대전화 번호',
  'field_error.phone.required': '휴대전화 번호를 입력해 주세요.',
  'field_error.phone.phone_not_mobile': '휴대전화 번호가 아닙니다. 휴대전화의 번호를 입력해 주세요.',
  'field_error.phone.phone_country': '서비스하는 국가의 휴대전화 번호로만 코드를 보낼 수 있습니다.',
  'field_error.phone': '010-1234-5678처럼 국내 휴대전화 번호를 입력해 주세요.',
  'field_error.phone_code.required': '문자로 받은 6자리 코드를 입력해 주세요.',
  'field_error.phone_code':
    '코드가 맞지 않거나 시간이 지났습니다. 가장 최근 문자의 코드를 입력하거나 새 코드를 받아 주세요.',
  'error.phone_in_use': '다른 계정이 이미 이 휴대전화 번호를 쓰고 있습니다.',
  'error.sms_not_configured': '이 서버에서는 문자를 보낼 수 없습니다. 다른 방법으로 로그인해 주세요.',
  'phone.title': '휴대전화 번호',
  'phone.lead':
    '인증된 번호가 있으면 문자로 받은 코드로 로그인할 수 있습니다. 번호를 추가하거나 바꾸거나 삭제하려면 먼저 본인 확인이 필요합니다.',
  'phone.none': '아직 등록된 휴대전화 번호가 없습니다.',
  'phone.current': '내 번호: {phone}',
  'phone.verified': '인증됨',
  'phone.unverified': '인증 전',
  'phone.sent': '{phone} 번호로 6자리 코드를 문자로 보냈습니다.',
  'action.phone_send': '문자로 코드 받기',
  'action.phone_verify': '번호 인증하기',
  'action.phone_remove': '번호 삭제',
  'status.phone_verified': '휴대전화 번호가 인증되었습니다. 이 번호로 로그인할 수 있습니다.',
  'status.phone_removed': '휴대전화 번호가 삭제되었습니다.',
};
