import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions, redactUrl } from '../../src/http/logging.js';
import { logSink } from '../helpers/logs.js';

describe('redactUrl', () => {
  it.each([
    ['/v1/user/get', '/v1/user/get'],
    ['/v1/user/get?api_token=s3cret', '/v1/user/get?api_token'],
    ['/v1/x?a=1&API_TOKEN=s3cret&b=2', '/v1/x?a&API_TOKEN&b'],
    ['/v1/x?alpha_access_token=s3cret', '/v1/x?alpha_access_token'],
    ['/v1/x?password=s3cret&current_password=old', '/v1/x?password&current_password'],
    ['/v1/x?api%5Ftoken=s3cret', '/v1/x?api%5Ftoken'],
    ['/v1/x?api_token[]=s3cret', '/v1/x?api_token[]'],
    ['/v1/x?api_token%00=s3cret', '/v1/x?api_token%00'],
    ['/v1/x?api_token', '/v1/x?api_token'],
    ['/v1/x?%E0%A4%A=1&api_token=s3cret', '/v1/x?%E0%A4%A&api_token'],
    ['/v1/x?order=hot&limit=5', '/v1/x?order&limit'],
    ['/v1/x?&&lang=ko', '/v1/x?lang'],
    ['/v1/x?aVeryLongBareKeyThatCouldBeAToken0123456789', '/v1/x?[redacted]'],
    ['/reset-password?token=s3cret', '/reset-password?token'],
    ['/v1/user/get;api_token=s3cret', '/v1/user/get;[redacted]'],
    ['/v1/user/get%3Bapi_token=s3cret?lang=ko', '/v1/user/get;[redacted]?lang'],
    ['/v1/users/api_token=s3cret', '/v1/users/api_token;[redacted]'],
  ])('%s → %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});

/** A pino logger with the service's options, writing JSON lines into an array. */
function capture(level = 'info') {
  const { stream, lines } = logSink();
  return { logger: pino(loggerOptions(level, ['alpha', 'beta', 'gamma']), stream), lines };
}

describe('loggerOptions', () => {
  it('censors secrets wherever an object carries them by name', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        body: { password: 'pw-1', current_password: 'pw-2', api_token: 'tok-1', email: 'kim@example.com' },
        provider: { access_token: 'tok-2', alpha_access_token: 'tok-3', beta_access_token: 'tok-4' },
        gamma: { gamma_access_token: 'tok-5', token: 'tok-6' },
        row: { password_hash: '$argon2id$secret-hash' },
      },
      'something happened',
    );
    const text = lines.join('');
    for (const secret of [
      'pw-1',
      'pw-2',
      'tok-1',
      'tok-2',
      'tok-3',
      'tok-4',
      'tok-5',
      'tok-6',
      'secret-hash',
    ]) {
      expect(text).not.toContain(secret);
    }
    const entry = JSON.parse(lines[0] as string);
    expect(entry.body).toEqual({
      password: '[redacted]',
      current_password: '[redacted]',
      api_token: '[redacted]',
      email: 'kim@example.com',
    });
  });

  it('logs a request as method, redacted url, address and user agent only', () => {
    const { logger, lines } = capture();
    const request = {
      method: 'GET',
      url: '/v1/user/get?api_token=query-secret',
      ip: '127.0.0.1',
      headers: {
        authorization: 'Bearer header-secret',
        cookie: 'sid=cookie-secret',
        'user-agent': 'app/1.0',
      },
      body: { password: 'body-secret' },
    };
    logger.info({ req: request }, 'incoming request');
    const entry = JSON.parse(lines[0] as string);
    expect(entry.req).toEqual({
      method: 'GET',
      url: '/v1/user/get?api_token',
      remoteAddress: '127.0.0.1',
      userAgent: 'app/1.0',
    });
    expect(lines.join('')).not.toMatch(/query-secret|header-secret|cookie-secret|body-secret/);
  });

  it('censors secrets in error objects and at the top level, keeping the error readable', () => {
    const { logger, lines } = capture();
    const error = Object.assign(new Error('provider refused'), {
      access_token: 'err-tok',
      delta_access_token: 'err-tok-2',
      code: 'E_PROVIDER',
    });
    logger.error({ err: error, password: 'top-secret', user: { id: 'u1' } }, 'failed');
    const entry = JSON.parse(lines[0] as string);
    expect(entry.err).toMatchObject({
      type: 'Error',
      message: 'provider refused',
      code: 'E_PROVIDER',
      access_token: '[redacted]',
      delta_access_token: '[redacted]',
    });
    expect(entry.err.stack).toContain('provider refused');
    expect(entry.password).toBe('[redacted]');
    expect(entry.user).toEqual({ id: 'u1' });
    expect(lines.join('')).not.toMatch(/err-tok|top-secret/);
    // The caller's error is not changed by logging it.
    expect(error.access_token).toBe('err-tok');
  });

  it('uses the configured level', () => {
    const { logger, lines } = capture('warn');
    logger.info('quiet');
    logger.warn('loud');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['loud']);
  });
});
