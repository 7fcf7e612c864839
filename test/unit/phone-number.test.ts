import { describe, expect, it } from 'vitest';
import { maskPhone, numberPrefix, parseMobileNumber } from '../../src/lib/phone-number.js';
import { renderCodeSms, SMS_MAX_BYTES, smsBytes } from '../../src/sms/wording.js';

describe('parseMobileNumber', () => {
  it.each(['010-1234-5678', '01012345678', '+82 10 1234 5678', '+82-10-1234-5678', '(010) 1234 5678'])(
    'reads %s as one Korean mobile number',
    (typed) => {
      expect(parseMobileNumber(typed, ['KR'])).toEqual({
        number: { e164: '+821012345678', country: 'KR', national: '1012345678', callingCode: '82' },
      });
    },
  );

  it.each<[string, string]>([
    ['', 'phone_invalid'],
    ['hello', 'phone_invalid'],
    ['010-1234', 'phone_invalid'],
    ['02-123-4567', 'phone_not_mobile'],
    ['060-700-1234', 'phone_not_mobile'],
    ['+1 900 555 0100', 'phone_not_mobile'],
    ['+81 90 1234 5678', 'phone_country'],
    ['+44 7911 123456', 'phone_country'],
  ])('refuses %s: %s', (typed, refused) => {
    expect(parseMobileNumber(typed, ['KR'])).toEqual({ refused });
  });

  it('accepts another allowed country, and a US number whose plan cannot tell mobile from landline', () => {
    expect(parseMobileNumber('+81 90 1234 5678', ['KR', 'JP'])).toMatchObject({
      number: { e164: '+819012345678' },
    });
    expect(parseMobileNumber('+1 202 555 0123', ['US'])).toMatchObject({ number: { country: 'US' } });
  });
});

describe('maskPhone and numberPrefix', () => {
  it('keeps the country code, the first two and the last four digits', () => {
    expect(maskPhone('+821012345678')).toBe('+82 10-****-5678');
    expect(maskPhone('+819012345678')).toBe('+81 90-****-5678');
    expect(maskPhone('nonsense')).toBe('+***');
    expect(maskPhone('+82123')).toBe('+82 ***');
  });

  it('takes a number less its last four digits as its block', () => {
    expect(numberPrefix('+821012345678')).toBe('+82101234');
  });
});

describe('renderCodeSms', () => {
  it('writes one SMS in the reader’s language with the service’s name and the code', () => {
    expect(renderCodeSms('ko', '민지앱', 'login', '012345')).toBe(
      '[민지앱] 로그인 인증번호 012345 (10분간 유효)',
    );
    expect(renderCodeSms('en', 'accounts', 'verify_phone', '987654')).toBe(
      '[accounts] Phone code 987654 (valid 10 min)',
    );
  });

  it('shortens a long service name so the message stays an SMS (at most 45 Korean characters)', () => {
    const text = renderCodeSms('ko', '아주아주긴서비스이름을가진우리회사의멋진앱', 'verify_phone', '123456');
    expect(smsBytes(text)).toBeLessThanOrEqual(SMS_MAX_BYTES);
    expect(text).toMatch(/^\[아주아주.*\] 휴대폰 인증번호 123456 \(10분간 유효\)$/);
    expect(smsBytes('가나a')).toBe(5);
  });
});
