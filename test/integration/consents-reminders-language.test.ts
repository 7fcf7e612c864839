import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reminderLocale } from '../../src/modules/consents/reminders.js';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { startTestSmtp, type TestSmtp } from '../helpers/mail.js';
import { buildTestServices } from '../helpers/services.js';

describe('the language of a re-confirmation reminder', () => {
  it('reads a device locale as a language tag: Korean for ko, English for anything else or none', () => {
    for (const tag of ['ko', 'ko-KR', 'ko_KR', 'KO-kr']) expect(reminderLocale(tag), tag).toBe('ko');
    for (const tag of ['en', 'en-US', 'ja-JP', 'kok', '', null])
      expect(reminderLocale(tag), String(tag)).toBe('en');
  });
});

/** The reminder mails, received by a real SMTP server, in the language of the user's latest device. */
describe.each(backends)('%s: reminder mails in the user’s language', (backend) => {
  let smtp: TestSmtp;
  let ctx: TestApp;

  beforeAll(async () => {
    smtp = await startTestSmtp();
    ctx = await createTestApp(backend, {
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: smtp.url,
      PUBLIC_URL: 'https://accounts.test',
    });
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await smtp?.close();
  });

  /** A user with a marketing agreement two years old (so the next run reminds them). */
  async function dueUser(): Promise<RegisteredUser> {
    const user = await registerUser(ctx.app, { consent_marketing_email: 'on' } as never);
    await ctx.database.handle.db
      .updateTable('consent_records')
      .set({ recorded_at: sql<Date>`recorded_at - interval '733 days'` })
      .where('user_id', '=', user.id)
      .execute();
    return user;
  }

  const device = (user: RegisteredUser, deviceId: string, locale: string) =>
    postForm(ctx.app, '/v1/user/device/update', { device_id: deviceId, locale }, bearer(user.token));

  async function reminderTo(user: RegisteredUser) {
    const mail = await smtp.mailTo(user.email);
    expect(mail.subject).not.toMatch(/confirm your email|이메일 주소/i);
    return mail;
  }

  it('mails in Korean when the latest device is Korean, in English otherwise, and without a device', async () => {
    const korean = await dueUser();
    expectOk(await device(korean, 'old-phone', 'en-US'));
    expectOk(await device(korean, 'new-phone', 'ko-KR'));
    const english = await dueUser();
    expectOk(await device(english, 'old-phone', 'ko-KR'));
    expectOk(await device(english, 'new-phone', 'en-GB'));
    // The older device updated again: it is now the latest, and it says Korean.
    const switched = await dueUser();
    expectOk(await device(switched, 'phone', 'en'));
    expectOk(await device(switched, 'tablet', 'ko_KR'));
    expectOk(await device(switched, 'phone', 'ko'));
    const deviceless = await dueUser();
    // The verification mails are sent at sign-up: the reminders are the next mail to each.
    await ctx.mailer.idle();
    smtp.mails.length = 0;

    const run = await buildTestServices(ctx).consentReminders.run();
    expect(run).toEqual({ reminded: 4, withdrawn: 0 });
    await ctx.mailer.idle();

    for (const user of [korean, switched]) {
      const mail = await reminderTo(user);
      expect(mail.subject).toBe('광고성 정보 수신 동의 여부를 확인해 주세요');
      expect(mail.text).toContain('- 광고성 정보 이메일 수신 동의');
      expect(mail.text).toContain('https://accounts.test/profile');
      expect(mail.html).toContain('<li>광고성 정보 이메일 수신 동의</li>');
    }
    for (const user of [english, deviceless]) {
      const mail = await reminderTo(user);
      expect(mail.subject).toBe('Do you still want our marketing messages?');
      expect(mail.text).toContain('- Marketing by email');
    }
    const stored = await ctx.database.handle.db
      .selectFrom('mail_outbox')
      .select(['to_address', 'locale'])
      .where('kind', '=', 'consent_reconfirm')
      .where('to_address', 'in', [korean.email, english.email, switched.email, deviceless.email])
      .orderBy('to_address')
      .execute();
    expect(Object.fromEntries(stored.map((row) => [row.to_address, row.locale]))).toEqual({
      [korean.email]: 'ko',
      [english.email]: 'en',
      [switched.email]: 'ko',
      [deviceless.email]: 'en',
    });
  });
});
