import { describe, expect, it } from 'vitest';
import { preferredLocale, renderFailure, renderFailures } from '../../src/validation/messages.js';

describe('renderFailure in English (Laravel 5 wording)', () => {
  it.each([
    ['email', { rule: 'required' }, 'The email field is required.'],
    ['user_agreement', { rule: 'accepted' }, 'The user agreement must be accepted.'],
    [
      'password',
      { rule: 'required_if', params: { other: 'type', value: 'email' } },
      'The password field is required when type is email.',
    ],
    [
      'alpha_access_token',
      { rule: 'required_if', params: { other: 'type', value: 'alpha' } },
      'The alpha access token field is required when type is alpha.',
    ],
    ['email', { rule: 'string' }, 'The email must be a string.'],
    ['gender', { rule: 'integer' }, 'The gender must be an integer.'],
    ['push_enabled', { rule: 'boolean' }, 'The push enabled field must be true or false.'],
    ['exclude', { rule: 'array' }, 'The exclude must be an array.'],
    ['profile_picture', { rule: 'file' }, 'The profile picture must be a file.'],
    ['email', { rule: 'email' }, 'The email must be a valid email address.'],
    ['username', { rule: 'regex' }, 'The username format is invalid.'],
    ['type', { rule: 'in' }, 'The selected type is invalid.'],
    ['email', { rule: 'exists' }, 'The selected email is invalid.'],
    ['email', { rule: 'unique' }, 'The email has already been taken.'],
    [
      'email',
      { rule: 'max.string', params: { max: 255 } },
      'The email may not be greater than 255 characters.',
    ],
    ['limit', { rule: 'max.numeric', params: { max: 100 } }, 'The limit may not be greater than 100.'],
    [
      'profile_picture',
      { rule: 'max.file', params: { max: 10240 } },
      'The profile picture may not be greater than 10240 kilobytes.',
    ],
    ['exclude', { rule: 'max.array', params: { max: 3 } }, 'The exclude may not have more than 3 items.'],
    ['password', { rule: 'min.string', params: { min: 8 } }, 'The password must be at least 8 characters.'],
    ['limit', { rule: 'min.numeric', params: { min: 1 } }, 'The limit must be at least 1.'],
    ['exclude', { rule: 'min.array', params: { min: 1 } }, 'The exclude must have at least 1 items.'],
    ['profile_picture', { rule: 'image' }, 'The profile picture must be an image.'],
    [
      'profile_picture',
      { rule: 'mimes', params: { values: 'jpeg, png, gif' } },
      'The profile picture must be a file of type: jpeg, png, gif.',
    ],
    ['profile_picture', { rule: 'dimensions' }, 'The profile picture has invalid image dimensions.'],
    ['password', { rule: 'password_common' }, 'The password is too common.'],
    ['current_password', { rule: 'current_password' }, 'The current password is incorrect.'],
    ['field', { rule: 'no-such-rule' }, 'The field is invalid.'],
  ])('%s / %o → %j', (field, failure, message) => {
    expect(renderFailure(field, failure, 'en')).toBe(message);
  });
});

describe('renderFailure in Korean (Laravel-Lang ko/validation.php, particles fitted to the name)', () => {
  it.each([
    ['email', { rule: 'required' }, '이메일 필드는 필수입니다.'],
    ['alpha_user_id', { rule: 'required' }, 'alpha 사용자 ID 필드는 필수입니다.'],
    [
      'password',
      { rule: 'required_if', params: { other: 'type', value: 'email' } },
      '가입 유형이 email일 때 비밀번호 필드는 필수입니다.',
    ],
    ['email', { rule: 'string' }, '이메일은 문자열이어야 합니다.'],
    ['gender', { rule: 'integer' }, '성별은 정수여야 합니다.'],
    ['push_enabled', { rule: 'boolean' }, '푸시 알림 허용은 true 또는 false여야 합니다.'],
    ['exclude', { rule: 'array' }, '제외 목록은 배열이어야 합니다.'],
    ['profile_picture', { rule: 'file' }, '프로필 사진은 파일이어야 합니다.'],
    ['user_agreement', { rule: 'accepted' }, '이용약관에 동의해야 합니다.'],
    ['email', { rule: 'email' }, '이메일은 유효한 이메일 주소여야 합니다.'],
    ['username', { rule: 'regex' }, '사용자 이름 형식이 유효하지 않습니다.'],
    ['gender', { rule: 'in' }, '선택된 성별은 유효하지 않습니다.'],
    ['email', { rule: 'exists' }, '선택된 이메일은 유효하지 않습니다.'],
    ['username', { rule: 'unique' }, '사용자 이름은 이미 사용 중입니다.'],
    ['bio', { rule: 'max.string', params: { max: 500 } }, '자기소개는 500자보다 길 수 없습니다.'],
    ['limit', { rule: 'max.numeric', params: { max: 100 } }, '개수는 100보다 클 수 없습니다.'],
    [
      'profile_picture',
      { rule: 'max.file', params: { max: 10240 } },
      '프로필 사진은 10240킬로바이트보다 클 수 없습니다.',
    ],
    ['exclude', { rule: 'max.array', params: { max: 3 } }, '제외 목록은 3개보다 많을 수 없습니다.'],
    ['slug', { rule: 'min.string', params: { min: 4 } }, '프로필 주소는 최소 4자 이상이어야 합니다.'],
    ['limit', { rule: 'min.numeric', params: { min: 1 } }, '개수는 1 이상이어야 합니다.'],
    ['exclude', { rule: 'min.array', params: { min: 1 } }, '제외 목록은 최소 1개의 항목이 있어야 합니다.'],
    ['profile_picture', { rule: 'image' }, '프로필 사진은 이미지여야 합니다.'],
    [
      'profile_picture',
      { rule: 'mimes', params: { values: 'jpeg, png, gif' } },
      '프로필 사진은 다음의 파일 형식이어야 합니다: jpeg, png, gif.',
    ],
    ['profile_picture', { rule: 'dimensions' }, '프로필 사진의 이미지 크기가 유효하지 않습니다.'],
    ['timezone', { rule: 'timezone' }, '시간대는 올바른 시간대여야 합니다.'],
    // Rules the pack lacks: the project's own wording.
    ['password', { rule: 'password_common' }, '비밀번호는 너무 흔한 비밀번호입니다.'],
    ['current_password', { rule: 'current_password' }, '현재 비밀번호가 올바르지 않습니다.'],
    [
      'alpha_user_id',
      { rule: 'provider_linked', params: { provider: 'alpha' } },
      '다른 alpha 계정이 이미 연결되어 있습니다. 먼저 연결을 해제하세요.',
    ],
    [
      'provider',
      { rule: 'last_sign_in_method', params: { provider: 'alpha' } },
      'alpha 계정은 유일한 로그인 수단입니다. 먼저 비밀번호를 설정하거나 다른 계정을 연결하세요.',
    ],
    ['gadget', { rule: 'no-such-rule' }, 'The gadget is invalid.'],
  ])('%s / %o → %j', (field, failure, message) => {
    expect(renderFailure(field, failure, 'ko')).toBe(message);
  });

  it('has a Korean message for every English one', () => {
    const rules = [
      'required',
      'required_if',
      'string',
      'integer',
      'boolean',
      'array',
      'file',
      'accepted',
      'email',
      'regex',
      'in',
      'exists',
      'unique',
      'max.string',
      'max.numeric',
      'max.file',
      'max.array',
      'min.string',
      'min.numeric',
      'min.array',
      'image',
      'mimes',
      'dimensions',
      'password_common',
      'current_password',
      'timezone',
    ];
    for (const rule of rules) {
      const params = { max: 1, min: 1, other: 'type', value: 'email', values: 'jpeg' };
      const english = renderFailure('email', { rule, params }, 'en');
      const korean = renderFailure('email', { rule, params }, 'ko');
      expect(english, rule).not.toBe('The email is invalid.');
      expect(korean, rule).not.toBe(english);
      expect(korean, rule).toContain('이메일');
      expect(korean, rule).not.toMatch(/:[a-z]+/);
    }
  });
});

describe('renderFailures', () => {
  it('renders every field in order, each to its list of messages', () => {
    expect(
      renderFailures({ email: [{ rule: 'required' }], slug: [{ rule: 'regex' }, { rule: 'unique' }] }, 'en'),
    ).toEqual({
      email: ['The email field is required.'],
      slug: ['The slug format is invalid.', 'The slug has already been taken.'],
    });
  });

  it('replaces :values whole, never as :value followed by "s"', () => {
    expect(
      renderFailure('profile_picture', { rule: 'mimes', params: { values: 'png', value: 'X' } }, 'en'),
    ).toBe('The profile picture must be a file of type: png.');
  });
});

describe('preferredLocale', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['ko', 'ko'],
    ['ko-KR', 'ko'],
    ['KO-kr', 'ko'],
    ['ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7', 'ko'],
    ['en-US,en;q=0.9,ko;q=0.8', 'en'],
    ['en;q=0.5, ko;q=0.6', 'ko'],
    ['ko;q=0.5, en;q=0.5', 'ko'],
    ['fr-FR,ko;q=0.3', 'ko'],
    ['fr-FR,de;q=0.9', 'en'],
    ['ko;q=0', 'en'],
    ['ko;q=abc, en;q=0.1', 'en'],
    ['*', 'en'],
  ])('%j → %s', (header, locale) => {
    expect(preferredLocale(header)).toBe(locale);
  });
});
