import type { Locale } from '../validation/messages.js';
import type { AlertWording } from './alert-wording.js';

/** The alerts of a change to a passkey or the second factor (their mail kinds). */
export type FactorAlertKind =
  | 'alert_passkey_added'
  | 'alert_passkey_removed'
  | 'alert_second_factor_enabled'
  | 'alert_second_factor_disabled'
  | 'alert_recovery_codes_regenerated'
  | 'alert_phone_verified'
  | 'alert_phone_removed';

/** The alerts of the sign-in factors besides the password: passkeys, the second factor, recovery codes. */
export const FACTOR_WORDING: Record<FactorAlertKind, Record<Locale, AlertWording>> = {
  alert_phone_verified: {
    en: {
      subject: 'A mobile number was added',
      lead: () => 'A mobile number was verified on your account: a code texted to it can now sign in.',
    },
    ko: {
      subject: '휴대폰 번호가 추가되었습니다',
      lead: () => '계정에 휴대폰 번호가 인증되어 이제 그 번호로 받은 코드로 로그인할 수 있습니다.',
    },
  },
  alert_phone_removed: {
    en: {
      subject: 'A mobile number was removed',
      lead: () => 'The mobile number was removed from your account: it no longer signs in.',
    },
    ko: {
      subject: '휴대폰 번호가 삭제되었습니다',
      lead: () => '계정에서 휴대폰 번호가 삭제되어 이제 그 번호로 로그인할 수 없습니다.',
    },
  },
  alert_passkey_added: {
    en: {
      subject: 'A passkey was added',
      lead: (v) =>
        `A passkey${v.passkey ? ` (“${v.passkey}”)` : ''} was added: it can now sign in to your account.`,
    },
    ko: {
      subject: '패스키가 추가되었습니다',
      lead: (v) =>
        `패스키${v.passkey ? `(“${v.passkey}”)` : ''}가 추가되어 이제 그 패스키로 계정에 로그인할 수 있습니다.`,
    },
  },
  alert_passkey_removed: {
    en: {
      subject: 'A passkey was removed',
      lead: (v) => `A passkey${v.passkey ? ` (“${v.passkey}”)` : ''} was removed from your account.`,
    },
    ko: {
      subject: '패스키가 삭제되었습니다',
      lead: (v) => `패스키${v.passkey ? `(“${v.passkey}”)` : ''}가 계정에서 삭제되었습니다.`,
    },
  },
  alert_second_factor_enabled: {
    en: {
      subject: 'Two-step verification was turned on',
      lead: () =>
        'Two-step verification was turned on: signing in now also needs a code from your authenticator app.',
    },
    ko: {
      subject: '2단계 인증이 켜졌습니다',
      lead: () => '2단계 인증이 켜져 이제 로그인할 때 인증 앱의 코드도 필요합니다.',
    },
  },
  alert_second_factor_disabled: {
    en: {
      subject: 'Two-step verification was turned off',
      lead: (v) =>
        v.byOperator
          ? 'Our support team turned two-step verification off at your request: signing in no longer needs a code.'
          : 'Two-step verification was turned off: signing in no longer needs a code.',
    },
    ko: {
      subject: '2단계 인증이 꺼졌습니다',
      lead: (v) =>
        v.byOperator
          ? '요청에 따라 고객지원팀이 2단계 인증을 껐습니다. 이제 로그인할 때 코드가 필요하지 않습니다.'
          : '2단계 인증이 꺼져 이제 로그인할 때 코드가 필요하지 않습니다.',
    },
  },
  alert_recovery_codes_regenerated: {
    en: {
      subject: 'New recovery codes were made',
      lead: () => 'New recovery codes were made for your account: the old ones no longer work.',
    },
    ko: {
      subject: '새 복구 코드가 만들어졌습니다',
      lead: () => '계정의 새 복구 코드가 만들어져 이전 코드는 더 이상 쓸 수 없습니다.',
    },
  },
};
