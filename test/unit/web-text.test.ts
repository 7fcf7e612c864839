import { describe, expect, it } from 'vitest';
import { settleParticles } from '../../web/src/lib/particles.js';
import { passwordStrength } from '../../web/src/lib/password-strength.js';

describe('the pages’ Korean particles', () => {
  it('chooses each particle by the word before it', () => {
    expect(settleParticles('슬러그은(는) 이미 사용 중입니다.')).toBe('슬러그는 이미 사용 중입니다.');
    expect(settleParticles('비밀번호은(는) 너무 흔한 비밀번호입니다.')).toBe(
      '비밀번호는 너무 흔한 비밀번호입니다.',
    );
    expect(settleParticles('현재 비밀번호이(가) 올바르지 않습니다.')).toBe(
      '현재 비밀번호가 올바르지 않습니다.',
    );
    expect(settleParticles('사용자 이름은(는) 이미 사용 중입니다.')).toBe(
      '사용자 이름은 이미 사용 중입니다.',
    );
    expect(settleParticles('이용약관 동의을(를) 동의해야 합니다.')).toBe('이용약관 동의를 동의해야 합니다.');
    expect(settleParticles('인증 코드이(가) 올바르지 않습니다.')).toBe('인증 코드가 올바르지 않습니다.');
    expect(settleParticles('패스키 응답을(를) 확인할 수 없습니다.')).toBe(
      '패스키 응답을 확인할 수 없습니다.',
    );
  });

  it('reads digits as numbers and takes 로 after ㄹ', () => {
    expect(settleParticles('최대 3이(가) 넘습니다')).toBe('최대 3이 넘습니다');
    expect(settleParticles('최대 2이(가) 넘습니다')).toBe('최대 2가 넘습니다');
    expect(settleParticles('서울(으)로 보냅니다')).toBe('서울로 보냅니다');
    expect(settleParticles('부산(으)로 보냅니다')).toBe('부산으로 보냅니다');
    expect(settleParticles('제주(으)로 보냅니다')).toBe('제주로 보냅니다');
  });

  it('leaves a message without placeholders as it is', () => {
    expect(settleParticles('이미 등록된 패스키입니다.')).toBe('이미 등록된 패스키입니다.');
    expect(settleParticles('The slug has already been taken.')).toBe('The slug has already been taken.');
  });
});

describe('the password strength hint', () => {
  it('judges length first, then the account’s own names, then how much a guesser must try', () => {
    expect(passwordStrength('short1!')).toBe('too_short');
    expect(passwordStrength('minji@example.com', ['minji@example.com', 'minji'])).toBe('personal');
    expect(passwordStrength('password')).toBe('weak');
    expect(passwordStrength('12345678')).toBe('weak');
    expect(passwordStrength('qwertyuiop')).toBe('weak');
    expect(passwordStrength('aaaaaaaaaaaa')).toBe('weak');
    expect(passwordStrength('Quiet-Harbour-2731')).toBe('strong');
    expect(passwordStrength('correct horse battery staple')).toBe('strong');
  });
});
