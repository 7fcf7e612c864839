/** The words of the age question at sign-up and of the guardian's page (docs/identity.md), both languages. */
export const GUARDIAN_ENGLISH = {
  'field.birth_date': 'Date of birth',
  'signup.birth_date_hint':
    'Under 14? After signing up you ask a parent or guardian to agree. Until they do, you can look around but not post or change your profile.',
  'signup.guardian_lead':
    'You are under 14, so a parent or legal guardian must agree before you can post. Enter their email: we send them a link to look at what you agreed to and answer.',
  'field.guardian_email': 'Parent or guardian’s email',
  'action.ask_guardian': 'Ask my guardian',
  'status.guardian_asked': 'Sent. When your guardian agrees, you can use everything.',
  'guardian.title': 'A guardian’s consent',
  'guardian.lead':
    'The account “{name}” belongs to a child under 14. Korean law lets us process a child’s personal information only with a legal guardian’s consent. These are the documents your child agreed to:',
  'guardian.method_link':
    'This link is how we confirm you: it went to the address your child gave. If you are not this child’s legal guardian, refuse.',
  'guardian.method_verified':
    'Before your answer is recorded, your phone carrier’s identity verification (본인인증, PASS and the like) confirms that you are an adult (19 or over): either button opens its window first.',
  'guardian.verification_cancelled':
    'The identity verification was not completed, so nothing was recorded. You can try again.',
  'guardian.not_adult':
    'The identity verification did not confirm an adult (19 or over). Only an adult legal guardian can answer for a child, so nothing was recorded.',
  'guardian.not_the_guardian':
    'The identity verification did not confirm the guardian who consented. Only they can withdraw, so nothing changed.',
  'guardian.withdraw_verified':
    'You consented with your phone carrier’s identity verification, so withdrawing asks for it again: the button opens its window first, and only the guardian who consented can withdraw.',
  'guardian.refuse_note': 'If you refuse, the account and everything collected for it are deleted at once.',
  'guardian.withdraw_lead':
    'You consented for the account “{name}”. You can withdraw: the account is then scheduled for deletion.',
  'action.guardian_agree': 'I agree',
  'action.guardian_refuse': 'I refuse',
  'action.guardian_withdraw': 'Withdraw my consent',
  'status.guardian_granted': 'Thank you: your consent is recorded. We mailed you a link to withdraw it.',
  'status.guardian_refused': 'Recorded: the account and everything collected for it have been deleted.',
  'status.guardian_withdrawn': 'Recorded: your consent is withdrawn and the account’s deletion is scheduled.',
  'error.guardian_consent_required':
    'A parent or guardian must agree first. Until then you can look around, but not post or change things.',
} as const;

export const GUARDIAN_KOREAN: Record<keyof typeof GUARDIAN_ENGLISH, string> = {
  'field.birth_date': '생년월일',
  'signup.birth_date_hint':
    '만 14세 미만이면 가입한 뒤 부모님(법정대리인)께 동의를 요청해야 합니다. 동의를 받기 전에는 둘러볼 수는 있지만 글을 쓰거나 프로필을 바꿀 수 없습니다.',
  'signup.guardian_lead':
    '만 14세 미만이라 글을 쓰려면 부모님(법정대리인)의 동의가 필요합니다. 부모님의 이메일을 입력하면 동의한 내용을 확인하고 답할 수 있는 링크를 보내 드립니다.',
  'field.guardian_email': '부모님(법정대리인) 이메일',
  'action.ask_guardian': '동의 요청 보내기',
  'status.guardian_asked': '보냈습니다. 부모님이 동의하면 모든 기능을 쓸 수 있습니다.',
  'guardian.title': '법정대리인 동의',
  'guardian.lead':
    '“{name}” 계정은 만 14세 미만 아동의 계정입니다. 개인정보 보호법에 따라 만 14세 미만 아동의 개인정보는 법정대리인의 동의가 있어야 처리할 수 있습니다. 자녀가 동의한 문서는 다음과 같습니다:',
  'guardian.method_link':
    '이 링크는 자녀가 알려 준 주소로 보낸 것으로, 이것으로 보호자임을 확인합니다. 이 아동의 법정대리인이 아니라면 거부해 주세요.',
  'guardian.method_verified':
    '답을 기록하기 전에 휴대폰 본인인증(PASS 등)으로 성인(만 19세 이상)인지 확인합니다. 어느 버튼을 누르든 먼저 본인인증 창이 열립니다.',
  'guardian.verification_cancelled':
    '본인인증이 완료되지 않아 아무것도 기록되지 않았습니다. 다시 시도할 수 있습니다.',
  'guardian.not_adult':
    '본인인증으로 성인(만 19세 이상)임이 확인되지 않았습니다. 아동을 대신해 답할 수 있는 사람은 성인인 법정대리인뿐이므로 아무것도 기록되지 않았습니다.',
  'guardian.not_the_guardian':
    '본인인증으로 동의한 법정대리인임이 확인되지 않았습니다. 동의한 분만 철회할 수 있으므로 아무것도 바뀌지 않았습니다.',
  'guardian.withdraw_verified':
    '휴대폰 본인인증으로 동의하셨으므로 철회할 때도 다시 본인인증을 합니다. 버튼을 누르면 먼저 본인인증 창이 열리며, 동의한 법정대리인만 철회할 수 있습니다.',
  'guardian.refuse_note': '거부하면 계정과 동의를 구하려고 받은 정보가 즉시 삭제됩니다.',
  'guardian.withdraw_lead': '“{name}” 계정에 동의하셨습니다. 동의를 철회하면 계정 삭제가 예약됩니다.',
  'action.guardian_agree': '동의합니다',
  'action.guardian_refuse': '거부합니다',
  'action.guardian_withdraw': '동의 철회하기',
  'status.guardian_granted':
    '감사합니다. 동의가 기록되었습니다. 철회할 수 있는 링크를 메일로 보내 드렸습니다.',
  'status.guardian_refused': '기록되었습니다. 계정과 동의를 구하려고 받은 정보가 모두 삭제되었습니다.',
  'status.guardian_withdrawn': '기록되었습니다. 동의가 철회되었고 계정 삭제가 예약되었습니다.',
  'error.guardian_consent_required':
    '먼저 부모님(법정대리인)의 동의가 필요합니다. 그 전에는 둘러볼 수는 있지만 글을 쓰거나 바꿀 수는 없습니다.',
};
