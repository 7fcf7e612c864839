import { describe, expect, it } from 'vitest';
import { TooManyRequestsError, ValidationError } from '../../src/errors.js';
import type { RateCounter } from '../../src/limits/rate-counter.js';
import { SmsGuard } from '../../src/sms/guard.js';
import { solapiAuthorization } from '../../src/sms/solapi.js';

/** A counter that logs what it was asked, and refuses when told to. */
function counter(name: string, log: string[], refuse = false): RateCounter {
  return {
    consume: async (key) => {
      log.push(`${name} consume ${key}`);
      if (refuse) throw new TooManyRequestsError(60);
    },
    refund: async (key) => {
      log.push(`${name} refund ${key}`);
    },
    reset: async () => {},
  };
}

function guard(refusing: string | undefined, log: string[], now = () => 0) {
  const names = ['ip', 'numberHour', 'numberDay', 'prefix', 'daily'] as const;
  const limits = Object.fromEntries(names.map((name) => [name, counter(name, log, name === refusing)]));
  const warnings: object[] = [];
  const refused: string[] = [];
  const built = new SmsGuard({
    allowedCountries: ['KR'],
    limits: limits as unknown as ConstructorParameters<typeof SmsGuard>[0]['limits'],
    logger: { info: () => {}, warn: (details) => warnings.push(details) },
    observer: { refused: (reason) => refused.push(reason) },
    now,
  });
  return { built, warnings, refused };
}

describe('SmsGuard', () => {
  it('counts a message on every limit, in order', async () => {
    const log: string[] = [];
    const { built } = guard(undefined, log);
    await built.admit(built.number('010-1234-5678'), '10.0.0.1');
    expect(log).toEqual([
      'ip consume 10.0.0.1',
      'numberHour consume +821012345678',
      'numberDay consume +821012345678',
      'prefix consume +82101234',
      'daily consume all',
    ]);
  });

  it('takes back the hits counted before the limit that refused, and names it', async () => {
    const log: string[] = [];
    const { built, refused } = guard('prefix', log);
    await expect(built.admit(built.number('01012345678'), '10.0.0.2')).rejects.toBeInstanceOf(
      TooManyRequestsError,
    );
    expect(log).toEqual([
      'ip consume 10.0.0.2',
      'numberHour consume +821012345678',
      'numberDay consume +821012345678',
      'prefix consume +82101234',
      'ip refund 10.0.0.2',
      'numberHour refund +821012345678',
      'numberDay refund +821012345678',
    ]);
    expect(refused).toEqual(['prefix']);
  });

  it('refuses a number with a 422 on the field, counted by why', () => {
    const { built, refused } = guard(undefined, []);
    expect(() => built.number('02-123-4567')).toThrow(ValidationError);
    try {
      built.number('+81 90 1234 5678', 'to');
    } catch (error) {
      expect((error as ValidationError).failures).toEqual({ to: [{ rule: 'phone_country' }] });
    }
    expect(refused).toEqual(['not_mobile', 'country']);
  });

  it('warns once when refusals rise to four times the minute before (and at least 20)', () => {
    let now = 0;
    const { built, warnings } = guard(undefined, [], () => now);
    const refuse = (times: number) => {
      for (let i = 0; i < times; i++) expect(() => built.number('nope')).toThrow(ValidationError);
    };
    refuse(10);
    now = 60_000;
    refuse(39);
    expect(warnings).toEqual([]);
    refuse(1);
    refuse(30);
    expect(warnings).toEqual([{ refused_this_minute: 40, refused_last_minute: 10, reason: 'invalid' }]);
    now = 120_000;
    refuse(50);
    expect(warnings).toHaveLength(1);
  });
});

describe('solapiAuthorization', () => {
  it('signs the date and a fresh salt with the secret, in the header SOLAPI reads', async () => {
    const { createHmac } = await import('node:crypto');
    const now = new Date('2026-11-28T12:00:00.000Z');
    const header = solapiAuthorization('KEY', 'SECRET', now);
    const match =
      /^HMAC-SHA256 apiKey=KEY, date=2026-11-28T12:00:00.000Z, salt=([0-9a-f]{64}), signature=([0-9a-f]{64})$/.exec(
        header,
      );
    expect(match).not.toBeNull();
    const [, salt, signature] = match as RegExpExecArray;
    expect(signature).toBe(
      createHmac('sha256', 'SECRET').update(`2026-11-28T12:00:00.000Z${salt}`).digest('hex'),
    );
    expect(solapiAuthorization('KEY', 'SECRET', now)).not.toBe(header);
  });
});
