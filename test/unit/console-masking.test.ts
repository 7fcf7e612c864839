import { describe, expect, it } from 'vitest';
import { toCsv } from '../../src/account/console-users/csv.js';
import {
  birthYear,
  maskAddress,
  maskEmail,
  maskName,
  maskPhone,
} from '../../src/account/console-users/masking.js';

describe('console masking', () => {
  it.each([
    ['mina@example.com', 'm***@example.com'],
    ['m@example.com', 'm***@example.com'],
    ['Jane.Doe+tag@mail.example.co.kr', 'J***@mail.example.co.kr'],
    ['민지@example.com', '민***@example.com'],
    ['not-an-email', '***'],
    ['@example.com', '***'],
  ])('email %s → %s', (email, masked) => {
    expect(maskEmail(email)).toBe(masked);
  });

  it.each([
    ['김민지', '김*지'],
    ['이순', '이*'],
    ['남궁민수', '남**수'],
    ['황보', '황*'],
    ['김', '*'],
    ['Jane Doe', 'J**e D*e'],
    ['Al', 'A*'],
    ['  김민지  ', '김*지'],
    ['', ''],
  ])('name %s → %s', (name, masked) => {
    expect(maskName(name)).toBe(masked);
  });

  it.each([
    ['+821012345678', '010-****-5678'],
    ['+82212345678', '02-****-5678'],
    ['+82311234567', '031-****-4567'],
    ['+14155550123', '+1******0123'],
    ['+123', '***'],
  ])('phone %s → %s', (phone, masked) => {
    expect(maskPhone(phone)).toBe(masked);
  });

  it.each([
    ['2008-05-17', '2008'],
    ['1990-01-01', '1990'],
    ['17/05/2008', null],
    [null, null],
  ])('birth date %s → %s', (date, year) => {
    expect(birthYear(date)).toBe(year);
  });

  it.each([
    ['203.0.113.7', '203.0.113.*'],
    ['2001:db8:85a3::8a2e:370:7334', '2001:db8:85a3:*'],
    ['', ''],
    ['garbage', '*'],
  ])('address %s → %s', (address, masked) => {
    expect(maskAddress(address)).toBe(masked);
  });
});

describe('console CSV', () => {
  it('quotes every cell, doubles quotes, keeps line breaks as data and defuses formulas', () => {
    expect(
      toCsv([
        ['id', 'note'],
        ['1', 'say "hi", then\nleave'],
        ['2', '=HYPERLINK("x")'],
        ['3', '+1'],
        ['4', '-2'],
        ['5', '@me'],
      ]),
    ).toBe(
      '"id","note"\r\n"1","say ""hi"", then\nleave"\r\n"2","\'=HYPERLINK(""x"")"\r\n"3","\'+1"\r\n"4","\'-2"\r\n"5","\'@me"\r\n',
    );
  });
});
