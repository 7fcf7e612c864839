import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from '../../src/http/logging.js';

describe('log redaction of provider tokens', () => {
  it('censors <name>_access_token for every configured provider name', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino(loggerOptions('info', ['kakao', 'alpha']), sink);
    logger.info({
      params: { kakao_access_token: 'secret-kakao', alpha_access_token: 'secret-alpha', kakao_user_id: 'k1' },
    });
    const line = JSON.parse(lines.join(''));
    expect(line.params).toEqual({
      kakao_access_token: '[redacted]',
      alpha_access_token: '[redacted]',
      kakao_user_id: 'k1',
    });
  });

  it('masks mobile numbers at the top level and one level down', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino(loggerOptions('info'), sink);
    logger.info({
      phone: '+821012345678',
      params: { phone: '010-9876-5432', code: '123456' },
      to_number: 'x',
    });
    const line = JSON.parse(lines.join(''));
    expect(line).toMatchObject({
      phone: '+82 10-****-5678',
      params: { phone: '+82 10-****-5432', code: '123456' },
      to_number: '+***',
    });
    expect(lines.join('')).not.toContain('12345678');
  });
});
