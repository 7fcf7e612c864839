import { describe, expect, it } from 'vitest';
import { isConnectionError, isUniqueViolation, violatedConstraint } from '../../src/db/errors.js';

function withCode(code: unknown, message = 'driver error', extra: Record<string, unknown> = {}) {
  return Object.assign(new Error(message), { code, ...extra });
}

describe('isUniqueViolation and violatedConstraint', () => {
  it('recognise SQLSTATE 23505 and name its constraint', () => {
    const error = withCode('23505', 'duplicate key', { constraint: 'users_email_lower_key' });
    expect(isUniqueViolation(error)).toBe(true);
    expect(violatedConstraint(error)).toBe('users_email_lower_key');
  });

  it.each([withCode('23503'), withCode('23514'), withCode(23505), new Error('x'), undefined, null, 'text'])(
    'do not take %o for a unique violation',
    (error) => {
      expect(isUniqueViolation(error)).toBe(false);
    },
  );

  it('gives no constraint name when there is none', () => {
    expect(violatedConstraint(withCode('23505'))).toBeUndefined();
    expect(violatedConstraint(withCode('23505', 'x', { constraint: 7 }))).toBeUndefined();
    expect(violatedConstraint(undefined)).toBeUndefined();
  });
});

describe('isConnectionError', () => {
  it.each([
    '08000',
    '08003',
    '08006',
    '08001',
    '57P01',
    '57P02',
    '57P03',
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
  ])('takes code %s for the database being unreachable', (code) => {
    expect(isConnectionError(withCode(code))).toBe(true);
  });

  it.each([
    withCode('57014', 'canceling statement due to statement timeout'),
    withCode('55P03', 'canceling statement due to lock timeout'),
    withCode('25P03', 'terminating connection due to idle-in-transaction timeout'),
    withCode('POOL_ACQUIRE_TIMEOUT', 'timeout exceeded when trying to connect (embedded)'),
    new Error('Query read timeout'),
  ])('takes %o, a wait past its bound (config/database.ts), for the database being unavailable', (error) => {
    expect(isConnectionError(error)).toBe(true);
  });

  it.each([
    'timeout exceeded when trying to connect',
    'Connection terminated unexpectedly',
    'connect ECONNREFUSED 127.0.0.1:5432',
    'Client has encountered a connection error and is not queryable',
  ])('takes the driver message %j for the database being unreachable', (message) => {
    expect(isConnectionError(new Error(message))).toBe(true);
  });

  it.each([
    withCode('23505'),
    withCode('42P01', 'relation "users" does not exist'),
    withCode('57P04'),
    new Error('something else'),
    undefined,
    'ECONNREFUSED',
  ])('does not take %o for an outage', (error) => {
    expect(isConnectionError(error)).toBe(false);
  });
});
