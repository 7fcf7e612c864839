import { describe, expect, it } from 'vitest';
import { parseCreatedAt } from '../../src/modules/users/import-service.js';

describe('parseCreatedAt (the created_at of an imported user)', () => {
  it.each([
    ['2019-03-04 05:06:07', '2019-03-04T05:06:07.000Z'],
    ['2020-02-29 23:59:59', '2020-02-29T23:59:59.000Z'],
    ['2019-03-04T05:06:07Z', '2019-03-04T05:06:07.000Z'],
    ['2019-03-04T05:06:07.5+09:00', '2019-03-03T20:06:07.500Z'],
    ['2019-03-04T00:30:00-01:00', '2019-03-04T01:30:00.000Z'],
  ])('reads %s as %s (Laravel datetimes are UTC)', (value, iso) => {
    expect(parseCreatedAt(value)?.toISOString()).toBe(iso);
  });

  it.each([
    '2023-02-30 10:00:00',
    '2019-02-29 10:00:00',
    '2019-13-01 00:00:00',
    '2019-03-04 24:00:01',
    '2019-03-04',
    '2019-03-04T05:06:07',
    '2019-03-31T05:06:07+25:00',
    '04/03/2019 05:06:07',
    ' 2019-03-04 05:06:07',
    '1551675967',
    '',
  ])('refuses %j', (value) => {
    expect(parseCreatedAt(value)).toBeUndefined();
  });

  it('refuses what is not a string', () => {
    expect(parseCreatedAt(1551675967)).toBeUndefined();
    expect(parseCreatedAt(undefined)).toBeUndefined();
  });
});
