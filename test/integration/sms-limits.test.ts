import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { expectTooManyRequests, newIp, post } from '../helpers/client-requests.js';
import { expectOk, expectValidationError } from '../helpers/http.js';
import { scrape, total } from '../helpers/metrics.js';
import { deleteKeys, limitsEnv, newKeyPrefix, stores } from '../helpers/redis.js';
import { newMobile } from '../helpers/solapi.js';

/** The SMS limits, small, and codes to the log (development): what is counted is the asking, not the sending. */
const SMS_LIMITS = {
  NODE_ENV: 'development',
  RATE_LIMIT_SMS_NUMBER_HOUR: '3/1h',
  RATE_LIMIT_SMS_NUMBER_DAY: '4/24h',
  RATE_LIMIT_SMS_IP: '6/1h',
  RATE_LIMIT_SMS_PREFIX: '5/1h',
  SMS_DAILY_LIMIT: '17',
};

const ask = (app: TestApp, phone: string, ip: string) => post(app.app, '/v1/auth/phone-code', { phone }, ip);

describe.each(stores)('SMS fraud limits on the %s store', (store) => {
  let ctx: TestApp;
  const keyPrefix = newKeyPrefix();
  beforeAll(async () => {
    ctx = await createTestApp('pglite', limitsEnv(store, SMS_LIMITS, keyPrefix));
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await deleteKeys(keyPrefix);
  });

  it('texts a number 3 times an hour, from any address, then answers 429 with Retry-After', async () => {
    const phone = newMobile();
    for (let i = 0; i < 3; i++) expectOk(await ask(ctx, phone.typed, newIp()));
    expectTooManyRequests(await ask(ctx, phone.typed, newIp()), 3600);
    const samples = await scrape(ctx.app);
    expect(total(samples, 'sms_refused_total', { reason: 'number_hour' })).toBe(1);
  });

  it('limits one address across numbers, and a refused ask costs the other limits nothing', async () => {
    const ip = newIp();
    for (let i = 0; i < 6; i++) expectOk(await ask(ctx, newMobile().typed, ip));
    const spared = newMobile();
    expectTooManyRequests(await ask(ctx, spared.typed, ip), 3600);
    // The refused ask was taken back from nothing after the IP: the number still has its three.
    for (let i = 0; i < 3; i++) expectOk(await ask(ctx, spared.typed, newIp()));
  });

  it('limits a block of neighbouring numbers, and the whole deployment’s day', async () => {
    const first = newMobile();
    const block = first.e164.slice(0, -4);
    const neighbours = [1, 2, 3, 4, 5, 6].map((n) => `${block}${String(n).padStart(4, '0')}`);
    for (const phone of neighbours.slice(0, 5)) expectOk(await ask(ctx, phone, newIp()));
    expectTooManyRequests(await ask(ctx, neighbours[5] ?? '', newIp()), 3600);
    // The asks that passed so far in this file (3, 6 + 3, 5) spent the day's 17: now every number waits.
    expectTooManyRequests(await ask(ctx, newMobile().typed, newIp()), 86_400);
    const samples = await scrape(ctx.app);
    expect(total(samples, 'sms_refused_total', { reason: 'prefix' })).toBe(1);
    expect(total(samples, 'sms_refused_total', { reason: 'daily' })).toBeGreaterThanOrEqual(1);
  });

  it('refuses premium, landline and foreign numbers before any limit, and counts why', async () => {
    const message = { phone: ['The phone must be a mobile number.'] };
    expectValidationError(await ask(ctx, '060-700-1234', newIp()), message);
    expectValidationError(await ask(ctx, '+1 900 555 0100', newIp()), message);
    expectValidationError(await ask(ctx, '+81 90 1234 5678', newIp()), {
      phone: ['The phone must be a mobile number of a country codes can be sent to.'],
    });
    const samples = await scrape(ctx.app);
    expect(total(samples, 'sms_refused_total', { reason: 'not_mobile' })).toBe(2);
    expect(total(samples, 'sms_refused_total', { reason: 'country' })).toBe(1);
  });
});

describe.runIf(stores.includes('redis'))('SMS limits shared by two instances on one Redis', () => {
  let first: TestApp;
  let second: TestApp;
  const keyPrefix = newKeyPrefix();
  beforeAll(async () => {
    const env = limitsEnv('redis', SMS_LIMITS, keyPrefix);
    first = await createTestApp('pglite', env);
    second = await createTestApp('pglite', env);
  });
  afterAll(async () => {
    if (first) await closeTestApp(first);
    if (second) await closeTestApp(second);
    await deleteKeys(keyPrefix);
  });

  it('count a number’s texts on either instance toward one limit', async () => {
    const phone = newMobile();
    for (const app of [first, second, first]) expectOk(await ask(app, phone.typed, newIp()));
    expectTooManyRequests(await ask(second, phone.typed, newIp()), 3600);
    expectTooManyRequests(await ask(first, phone.typed, newIp()), 3600);
  });
});
