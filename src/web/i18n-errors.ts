/**
 * The pages' own words for every refusal they can meet, in both languages. The API's `meta.error_message` is
 * the interface's English and stays as it is for the apps; a page chooses one of these by the answer's
 * status, `data.status` and `meta.error_type` instead (web/src/lib/answers.ts), so a Korean reader never
 * meets English. i18n.ts merges them into each page's messages.
 */
export const ERRORS_ENGLISH = {
  'error.credentials': 'Wrong email or password. Check both and try again.',
  'error.account_disabled': 'This account has been disabled. Contact support if you think this is a mistake.',
  'error.not_registered': 'No account is linked to this sign-in.',
  'error.deletion_scheduled':
    'This account is scheduled for deletion on {date}, so logging in is refused. To keep it, use the “Keep your account” page.',
  'error.signed_out': 'You are no longer signed in. Log in again.',
  'error.forbidden': 'You are not allowed to do this.',
  'error.not_found': 'This was not found. It may have been removed already.',
  'error.too_many': 'Too many attempts. Wait {wait} and try again.',
  'error.too_many_soon': 'Too many attempts. Wait a moment and try again.',
  'error.too_large': 'The file is too large.',
  'error.bad_request': 'The request could not be read. Reload the page and try again.',
  'error.unavailable': 'The service is busy or down for a moment. Please try again shortly.',
  'error.second_factor_unavailable': 'Two-step verification is not available on this server.',
  'error.provider_unavailable': 'The sign-in provider could not be reached. Please try again.',
  'error.server': 'Something went wrong on our side. Please try again.',
  'error.no_token': 'This link is incomplete. Open the link from the mail again.',
  'error.link_used':
    'This link has already been used or has expired. Each link works once and only for a limited time.',
  'error.reauth_needed': 'First confirm it is you, with your password or a passkey.',
  'error.passwords_differ': 'The two new passwords are not the same.',
  'error.passkey_cancelled': 'The passkey was not used: it was cancelled, or it timed out. Please try again.',
  'error.passkeys_unusable_ip':
    'Passkeys do not work at an IP address such as {host}. Open this site at its name (for example localhost) to use them.',
  'error.passkeys_unsupported': 'This browser cannot use passkeys.',
  'error.passkeys_wrong_address':
    'Passkeys are not set up for this address ({host}). Open the site at its usual address to use them.',
  'error.passkey_registered': 'This passkey is already added to your account.',
  'time.seconds': '{count} seconds',
  'time.minutes': '{count} minutes',
} as const;

export type ErrorMessageKey = keyof typeof ERRORS_ENGLISH;

export const ERRORS_KOREAN: Record<ErrorMessageKey, string> = {
  'error.credentials': '이메일 또는 비밀번호가 맞지 않습니다. 확인한 뒤 다시 시도해 주세요.',
  'error.account_disabled': '이용이 정지된 계정입니다. 잘못된 조치라고 생각되면 고객센터에 문의해 주세요.',
  'error.not_registered': '이 로그인 수단에 연결된 계정이 없습니다.',
  'error.deletion_scheduled':
    '{date}에 삭제될 예정인 계정이라 로그인할 수 없습니다. 계정을 유지하려면 “계정 유지하기” 페이지를 이용하세요.',
  'error.signed_out': '로그인이 만료되었습니다. 다시 로그인해 주세요.',
  'error.forbidden': '이 작업을 할 권한이 없습니다.',
  'error.not_found': '찾을 수 없습니다. 이미 삭제되었을 수 있습니다.',
  'error.too_many': '시도가 너무 많습니다. {wait} 뒤에 다시 시도해 주세요.',
  'error.too_many_soon': '시도가 너무 많습니다. 잠시 뒤에 다시 시도해 주세요.',
  'error.too_large': '파일이 너무 큽니다.',
  'error.bad_request': '요청을 읽을 수 없습니다. 페이지를 새로고침한 뒤 다시 시도해 주세요.',
  'error.unavailable': '서비스가 잠시 바쁘거나 점검 중입니다. 조금 뒤에 다시 시도해 주세요.',
  'error.second_factor_unavailable': '이 서버에서는 2단계 인증을 쓸 수 없습니다.',
  'error.provider_unavailable': '로그인 서비스에 연결할 수 없습니다. 다시 시도해 주세요.',
  'error.server': '서버에서 문제가 생겼습니다. 다시 시도해 주세요.',
  'error.no_token': '링크가 완전하지 않습니다. 메일의 링크를 다시 열어 주세요.',
  'error.link_used':
    '이미 사용했거나 기한이 지난 링크입니다. 링크는 한 번만, 정해진 시간 안에만 쓸 수 있습니다.',
  'error.reauth_needed': '먼저 비밀번호나 패스키로 본인 확인을 해 주세요.',
  'error.passwords_differ': '새 비밀번호 두 개가 서로 다릅니다.',
  'error.passkey_cancelled': '패스키를 쓰지 못했습니다. 취소되었거나 시간이 지났습니다. 다시 시도해 주세요.',
  'error.passkeys_unusable_ip':
    '{host} 같은 IP 주소에서는 패스키를 쓸 수 없습니다. 패스키를 쓰려면 이 사이트를 이름(예: localhost)으로 열어 주세요.',
  'error.passkeys_unsupported': '이 브라우저에서는 패스키를 쓸 수 없습니다.',
  'error.passkeys_wrong_address':
    '이 주소({host})에서는 패스키를 쓰도록 설정되어 있지 않습니다. 패스키를 쓰려면 사이트의 원래 주소로 열어 주세요.',
  'error.passkey_registered': '이미 계정에 추가된 패스키입니다.',
  'time.seconds': '{count}초',
  'time.minutes': '{count}분',
};
