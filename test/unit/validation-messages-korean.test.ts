import { describe, expect, it } from 'vitest';
import { type JosaOption, josa } from '../../src/validation/josa.js';
import { renderFailure } from '../../src/validation/messages.js';
import { KO, KO_ATTRIBUTES } from '../../src/validation/messages-ko.js';

describe('josa', () => {
  it.each<[string, JosaOption, string]>([
    ['프로필 주소', '은/는', '프로필 주소는'],
    ['이메일', '은/는', '이메일은'],
    ['비밀번호', '이/가', '비밀번호가'],
    ['인증 요청', '이/가', '인증 요청이'],
    ['사과', '을/를', '사과를'],
    ['응답', '을/를', '응답을'],
    ['사과', '와/과', '사과와'],
    ['토큰', '와/과', '토큰과'],
    ['버스', '으로/로', '버스로'],
    ['지하철', '으로/로', '지하철로'],
    ['집', '으로/로', '집으로'],
    ['ID', '이/가', 'ID가'],
    ['', '이/가', ''],
  ])('%s + %s → %s', (word, option, expected) => {
    expect(josa(word, option)).toBe(expected);
  });
});

/**
 * Whether each Korean field name ends in a final consonant (받침), written out by hand, so the particle the
 * messages chose is checked against a reader, not against the code that chose it. Latin letters are read
 * without one (`ID` → 아이디).
 */
const ENDS_IN_CONSONANT: Record<string, boolean> = {
  이메일: true,
  '사용자 이름': true,
  '프로필 주소': false,
  비밀번호: false,
  '현재 비밀번호': false,
  성별: true,
  '가입 유형': true,
  이용약관: true,
  '프로필 사진': true,
  자기소개: false,
  '기기 ID': false,
  플랫폼: true,
  '푸시 토큰': true,
  '푸시 알림 허용': true,
  '앱 버전': true,
  'OS 버전': true,
  언어: false,
  시간대: false,
  정렬: true,
  개수: false,
  커서: false,
  '제외 목록': true,
  '소셜 계정': true,
  내용: true,
  이미지: false,
  토큰: true,
  '인증 코드': false,
  '휴대폰 번호': false,
  '복구 코드': false,
  용도: false,
  '인증 요청': true,
  '2단계 인증': true,
  패스키: false,
  '패스키 응답': true,
  '패스키 챌린지 ID': false,
  '본인인증 ID': false,
  응답: true,
  '챌린지 ID': false,
  이름: true,
  ID: false,
  '변경 경로': false,
  버전: true,
  '시작 시각': true,
  '종료 시각': true,
  '멱등성 키': false,
  'alpha 사용자 ID': false,
  '서비스 이용약관': true,
  '개인정보 수집·이용': true,
  '광고성 정보 이메일 수신': true,
  '광고성 정보 앱 푸시 수신': true,
  '광고성 정보 문자(SMS) 수신': true,
  '야간(21시~08시) 광고성 푸시 수신': true,
  '광고성 정보 이메일 수신 동의': false,
  'newsletter 동의': false,
  'alpha 액세스 토큰': true,
  생년월일: true,
  '보호자 이메일': true,
  '동의 여부': false,
  본인인증: true,
  사유: false,
  항목: true,
  검색어: false,
  '검색 방식': true,
  세션: true,
  직원: true,
  '명령 실행 사용자': false,
  '대상 사용자': false,
  작업: true,
  '시작 시점': true,
  '종료 시점': true,
  '검토 월': true,
};

const FIELDS = [
  ...Object.keys(KO_ATTRIBUTES),
  'alpha_user_id',
  'alpha_access_token',
  'consent_marketing_email',
  'consent_newsletter',
];
const PARAMS = {
  max: 255,
  min: 4,
  other: 'type',
  value: 'email',
  values: 'jpeg, png, gif',
  provider: 'alpha',
  date: 'starts_at',
  detail: 'a private address',
};
const PLACEHOLDER = /\((은|는|이|가|을|를|과|와|으로|로)\)/;

function expectedParticle(name: string, option: string): string {
  const [afterConsonant = '', afterVowel = ''] = option.split('/');
  const consonant = ENDS_IN_CONSONANT[name];
  if (consonant === undefined) throw new Error(`no reading for ${name}`);
  if (option === '와/과') return consonant ? '과' : '와';
  return consonant ? afterConsonant : afterVowel;
}

describe('every Korean message for every field name', () => {
  it('knows how every field name is read', () => {
    for (const field of FIELDS) {
      const name = renderFailure(field, { rule: 'regex' }, 'ko').replace(' 형식이 유효하지 않습니다.', '');
      expect(Object.keys(ENDS_IN_CONSONANT), field).toContain(name);
    }
  });

  it.each(Object.keys(KO))('%s: no placeholder particle, and the particle the name takes', (rule) => {
    const template = KO[rule] as string;
    for (const field of FIELDS) {
      const message = renderFailure(field, { rule, params: PARAMS }, 'ko');
      const name = renderFailure(field, { rule: 'regex' }, 'ko').replace(' 형식이 유효하지 않습니다.', '');
      expect(message, `${rule} / ${field}`).not.toMatch(PLACEHOLDER);
      expect(message, `${rule} / ${field}`).not.toMatch(/[{}]|:[a-z]/);
      const attribute = /:attribute\{([^}]+)\}/.exec(template)?.[1];
      if (attribute)
        expect(message, `${rule} / ${field}`).toContain(name + expectedParticle(name, attribute));
      const other = /:other\{([^}]+)\}/.exec(template)?.[1];
      if (other)
        expect(message, `${rule} / ${field}`).toContain(`가입 유형${expectedParticle('가입 유형', other)}`);
    }
  });

  it('names the profile address as the pages do, never "슬러그"', () => {
    expect(renderFailure('slug', { rule: 'unique' }, 'ko')).toBe('프로필 주소는 이미 사용 중입니다.');
    for (const rule of Object.keys(KO)) {
      expect(renderFailure('slug', { rule, params: PARAMS }, 'ko')).not.toContain('슬러그');
    }
  });

  it('leaves the English wording as it was', () => {
    expect(renderFailure('slug', { rule: 'unique' }, 'en')).toBe('The slug has already been taken.');
    expect(renderFailure('alpha_user_id', { rule: 'required' }, 'en')).toBe(
      'The alpha user id field is required.',
    );
  });
});
