import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/http/auth.js';
import { requestId } from '../../src/http/server-setup.js';

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer \tabc-._~+/xyz==  ', 'abc-._~+/xyz=='],
    ['Bearer Zm9vYmFy', 'Zm9vYmFy'],
  ])('reads %j as %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });

  it.each([
    undefined,
    '',
    'abc',
    'Bearer',
    'Bearer ',
    'Basic dXNlcjpwYXNz',
    'Bearer a b',
    'Bearer abc,def',
    'Bearer a=b',
    'Bearerabc',
    'Token abc',
  ])('finds no token in %j', (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});

describe('requestId', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it.each(['abc', 'req-1.2_3', 'A'.repeat(64)])('keeps the client id %j', (id) => {
    expect(requestId({ headers: { 'x-request-id': id } })).toBe(id);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['too long', 'A'.repeat(65)],
    ['with a space', 'a b'],
    ['with a newline (log injection)', 'a\nlevel=error'],
    ['non-ASCII', '요청'],
    ['repeated header', ['a', 'b']],
  ])('replaces a client id that is %s with a fresh UUID', (_why, id) => {
    expect(requestId({ headers: { 'x-request-id': id } })).toMatch(uuid);
  });

  it('gives every request its own id', () => {
    expect(requestId({ headers: {} })).not.toBe(requestId({ headers: {} }));
  });
});
