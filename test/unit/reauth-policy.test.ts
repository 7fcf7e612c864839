import { describe, expect, it } from 'vitest';
import {
  dependsOnSecondFactor,
  factorsNeeded,
  type SensitiveChange,
  secondFactorNeeded,
} from '../../src/account/reauth/policy.js';
import {
  reauthProof,
  reauthRules,
  reauthWindowProof,
  reauthWindowRules,
} from '../../src/account/reauth/rules.js';

const changes: SensitiveChange[] = [
  'password',
  'email',
  'passkey',
  'provider_link',
  'phone',
  'second_factor',
  'deletion',
  'export',
];

describe('the factors a change needs', () => {
  it('asks two only of a way in (email, passkey, provider link) while the second factor is on', () => {
    expect(
      changes.map((change) => [change, factorsNeeded(change, true), factorsNeeded(change, false)]),
    ).toEqual([
      ['password', 1, 1],
      ['email', 2, 1],
      ['passkey', 2, 1],
      ['provider_link', 2, 1],
      ['phone', 2, 1],
      ['second_factor', 1, 1],
      ['deletion', 1, 1],
      ['export', 1, 1],
    ]);
  });

  it('reads the second factor only for a way in', () => {
    expect(changes.filter(dependsOnSecondFactor)).toEqual(['email', 'passkey', 'provider_link', 'phone']);
  });

  it('refuses a one-factor proof with the 422 on code', () => {
    expect(secondFactorNeeded().failures).toEqual({ code: [{ rule: 'reauth_second_factor' }] });
  });
});

describe('the proof a request carries', () => {
  const response = { id: 'cred', response: {} };

  it('takes the password, complete provider pairs and a complete passkey answer', () => {
    const params = {
      current_password: 'pw',
      kakao_user_id: 'k1',
      kakao_access_token: 'kt',
      naver_user_id: 'n1',
      passkey_challenge_id: 'c1',
      passkey_response: response,
    };
    expect(reauthProof(params, ['kakao', 'naver'])).toEqual({
      currentPassword: 'pw',
      credentials: [{ provider: 'kakao', userId: 'k1', accessToken: 'kt' }],
      passkey: { challengeId: 'c1', response },
    });
  });

  it('takes nothing that is missing or not a string', () => {
    expect(reauthProof({ current_password: 5, passkey_challenge_id: 'c1' }, [])).toEqual({
      currentPassword: undefined,
      credentials: [],
      passkey: undefined,
    });
    expect(reauthProof({ passkey_challenge_id: 7, passkey_response: response }, [])).toEqual({
      currentPassword: undefined,
      credentials: [],
      passkey: undefined,
    });
  });

  it('adds the second factor’s code or recovery code for user/reauth', () => {
    expect(reauthWindowProof({ current_password: 'pw', code: '123456' }, [])).toEqual({
      currentPassword: 'pw',
      credentials: [],
      passkey: undefined,
      secondFactor: { code: '123456', recoveryCode: undefined },
    });
    expect(reauthWindowProof({ code: '123456', recovery_code: 7 }, []).secondFactor).toEqual({
      code: '123456',
      recoveryCode: undefined,
    });
    expect(reauthWindowProof({ recovery_code: 'abcde-fghij', code: 1 }, [])).toEqual({
      currentPassword: undefined,
      credentials: [],
      passkey: undefined,
      secondFactor: { code: undefined, recoveryCode: 'abcde-fghij' },
    });
  });
});

describe('the proof fields', () => {
  it('take every provider’s pair but the one being linked, and user/reauth takes the codes too', () => {
    expect(Object.keys(reauthRules(['kakao', 'naver'], 'kakao'))).toEqual([
      'current_password',
      'passkey_challenge_id',
      'passkey_response',
      'naver_user_id',
      'naver_access_token',
    ]);
    expect(Object.keys(reauthWindowRules(['kakao']))).toEqual([
      'current_password',
      'passkey_challenge_id',
      'passkey_response',
      'kakao_user_id',
      'kakao_access_token',
      'code',
      'recovery_code',
    ]);
  });
});
