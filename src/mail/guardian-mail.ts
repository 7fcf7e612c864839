import type { Locale } from '../validation/messages.js';
import type { Wording } from './wording.js';

/**
 * The mails to a child's legal guardian (docs/identity.md): the request for consent, and, once given, the
 * confirmation that carries the link to withdraw it. The name in them is the child's username: the guardian
 * must know which account the mail is about.
 */
export type GuardianMailKind = 'guardian_consent_request' | 'guardian_consent_granted';

export const GUARDIAN_WORDING: Record<GuardianMailKind, Record<Locale, Wording>> = {
  guardian_consent_request: {
    en: {
      inDays: true,
      subject: 'Your child asks for your consent',
      greeting: (name) => `Hello, you were named as the legal guardian of the account “${name}”.`,
      lead:
        'The account holder is under 14. Korean law lets us process a child’s personal information only ' +
        'with a legal guardian’s consent. Open the link below to see what your child agreed to, and to ' +
        'consent or refuse.',
      action: 'Review and answer',
      expiry: (duration) =>
        `Without an answer within ${duration}, the account and everything collected for it are deleted.`,
      ignore:
        'If you are not this child’s legal guardian, refuse on the page, or ignore this mail: the account ' +
        'is deleted at the deadline.',
    },
    ko: {
      inDays: true,
      subject: '자녀가 법정대리인의 동의를 요청했습니다',
      greeting: (name) => `“${name}” 계정의 법정대리인으로 지정되셨습니다.`,
      lead:
        '계정 이용자는 만 14세 미만입니다. 개인정보 보호법에 따라 만 14세 미만 아동의 개인정보는 법정대리인의 ' +
        '동의가 있어야 처리할 수 있습니다. 아래 링크를 열어 자녀가 동의한 내용을 확인하고 동의 여부를 선택해 주세요.',
      action: '확인하고 답하기',
      expiry: (duration) =>
        `${duration} 안에 답이 없으면 계정과 동의를 구하려고 받은 정보가 모두 삭제됩니다.`,
      ignore:
        '이 아동의 법정대리인이 아니라면 페이지에서 거부하시거나 이 메일을 무시하세요. 기한이 지나면 계정이 삭제됩니다.',
    },
  },
  guardian_consent_granted: {
    en: {
      inDays: true,
      subject: 'You consented for your child’s account',
      greeting: (name) => `Hello, you consented as the legal guardian of the account “${name}”.`,
      lead:
        'Thank you: the account can now be used. You can withdraw your consent at any time with the link ' +
        'below; the account is then scheduled for deletion.',
      action: 'Withdraw my consent',
      expiry: (duration) => `The link works once, for ${duration} (until your child turns 14).`,
      ignore: 'Keep this mail: it is how you withdraw your consent.',
    },
    ko: {
      inDays: true,
      subject: '자녀 계정에 동의하셨습니다',
      greeting: (name) => `“${name}” 계정의 법정대리인으로 동의하셨습니다.`,
      lead:
        '이제 계정을 이용할 수 있습니다. 아래 링크로 언제든지 동의를 철회할 수 있으며, 철회하면 계정 삭제가 ' +
        '예약됩니다.',
      action: '동의 철회하기',
      expiry: (duration) => `링크는 ${duration} 동안(자녀가 만 14세가 될 때까지) 한 번 사용할 수 있습니다.`,
      ignore: '동의를 철회할 때 필요하니 이 메일을 보관해 주세요.',
    },
  },
};
