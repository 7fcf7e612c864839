import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildAppWithParts } from '../../src/app.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { closeTestApp, createTestApp, type TestApp, testConfig, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { outboxFor } from '../helpers/mail.js';
import { deleteKeys, limitsEnv, newKeyPrefix, stores } from '../helpers/redis.js';

/** The cap under test, with every other limit at its default. */
const CAP = { RATE_LIMIT_MAIL_ADDRESS: '5/1h' };

/** Marks the user's address verified, as following the mailed link does. */
async function verified(handle: DatabaseHandle, user: RegisteredUser): Promise<RegisteredUser> {
  await sql`UPDATE users SET email_verified = true WHERE id = ${user.id}`.execute(handle.db);
  return user;
}

/** Changes the password `times` times through user/update (re-authenticated each time); the last one. */
async function changePassword(app: TestApp['app'], user: RegisteredUser, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const password = `Harbour-Lantern-${i}-${unique()}`;
    const form = { password, current_password: user.password };
    expectOk(await postForm(app, '/v1/user/update', form, bearer(user.token)));
    user.password = password;
  }
}

/** The kinds of the mails written to the address (the outbox), in order. */
async function kindsTo(handle: DatabaseHandle, address: string): Promise<string[]> {
  return (await outboxFor(handle, address)).map((mail) => mail.kind);
}

/** Ends the address's window now: its held-back mails are due for their summary. */
async function endWindow(handle: DatabaseHandle, address: string): Promise<void> {
  await sql`UPDATE mail_folds SET due_at = now() WHERE lower(to_address) = lower(${address})`.execute(
    handle.db,
  );
}

describe.each(backends)('%s: at most five mails an address an hour', (backend) => {
  const ctx = useTestApp(backend, limitsEnv('memory', CAP));

  it('15 password changes mail 5 alerts, then one summary of the other 10 once the hour is over', async () => {
    const user = await verified(ctx.database.handle, await registerUser(ctx.app));
    await changePassword(ctx.app, user, 15);
    await ctx.mailer.idle();
    // Five alerts, then the cap (the sign-up's own verification mail is no signed-in action's: not counted).
    expect(await kindsTo(ctx.database.handle, user.email)).toEqual([
      'email_verify',
      ...Array(5).fill('alert_password_changed'),
    ]);
    // Nothing is summarised before the window is over.
    expect(await ctx.mailSummaries.summarizeDue()).toBe(0);
    await endWindow(ctx.database.handle, user.email);
    expect(await ctx.mailSummaries.summarizeDue()).toBe(1);
    expect(await ctx.mailSummaries.summarizeDue()).toBe(0);
    await ctx.mailer.idle();
    const mails = await outboxFor(ctx.database.handle, user.email);
    expect(mails).toHaveLength(7);
    const summary = mails.at(-1);
    expect(summary).toMatchObject({ kind: 'mail_summary', subject: 'More mail about your account' });
    expect(summary?.text).toContain('10 messages were held back');
    expect(summary?.text?.match(/: Your password was changed$/gm)).toHaveLength(10);
    expect(summary?.text).not.toContain('http');
  });

  it('mails no alert to an address nobody verified, however often it is changed', async () => {
    const user = await registerUser(ctx.app);
    await changePassword(ctx.app, user, 3);
    await ctx.mailer.idle();
    expect(await kindsTo(ctx.database.handle, user.email)).toEqual(['email_verify']);
  });

  it("mails someone's address at most five times, however often an account switches to it and back", async () => {
    const attacker = await verified(ctx.database.handle, await registerUser(ctx.app));
    const own = attacker.email;
    const victim = `victim${unique()}@example.com`;
    for (let i = 0; i < 15; i++) {
      for (const email of [victim, own]) {
        const form = { email, current_password: attacker.password };
        expectOk(await postForm(ctx.app, '/v1/user/update', form, bearer(attacker.token)));
      }
    }
    await ctx.mailer.idle();
    // Confirmation links only (no alert: the address was never verified), five of the fifteen.
    expect(await kindsTo(ctx.database.handle, victim)).toEqual(Array(5).fill('email_verify'));
    await endWindow(ctx.database.handle, victim);
    expect(await ctx.mailSummaries.summarizeDue()).toBe(1);
    const summary = (await outboxFor(ctx.database.handle, victim)).at(-1);
    expect(summary?.text).toContain('10 messages were held back');
  });

  it("mails the email change's alert to the previous address only when it was verified", async () => {
    const unverified = await registerUser(ctx.app);
    const proven = await verified(ctx.database.handle, await registerUser(ctx.app));
    for (const user of [unverified, proven]) {
      const form = { email: `moved${unique()}@example.com`, current_password: user.password };
      expectOk(await postForm(ctx.app, '/v1/user/update', form, bearer(user.token)));
    }
    await ctx.mailer.idle();
    expect(await kindsTo(ctx.database.handle, unverified.email)).toEqual(['email_verify']);
    expect(await kindsTo(ctx.database.handle, proven.email)).toEqual(['email_verify', 'alert_email_changed']);
  });
});

/** Two instances of one PostgreSQL database, their limits in one Redis: one cap, one summary. */
describe.runIf(backends.includes('postgres') && stores.includes('redis'))(
  'two instances on PostgreSQL and Redis',
  () => {
    const keyPrefix = newKeyPrefix();
    let first: TestApp;
    let second: BuiltApp;
    let secondDatabase: DatabaseHandle;

    beforeAll(async () => {
      const env = limitsEnv('redis', CAP, keyPrefix);
      first = await createTestApp('postgres', env);
      secondDatabase = await openDatabase({ url: first.database.url, embeddedDir: '', poolMax: 4 });
      second = await buildAppWithParts(testConfig(env, first.dataDir), { database: secondDatabase });
      await second.app.ready();
    });
    afterAll(async () => {
      await second?.app.close();
      await secondDatabase?.close();
      if (first) await closeTestApp(first);
      await deleteKeys(keyPrefix);
    });

    it('share the cap, and send one summary however many instances summarise at once', async () => {
      const user = await verified(first.database.handle, await registerUser(first.app));
      await changePassword(first.app, user, 4);
      await changePassword(second.app, user, 4);
      await Promise.all([first.mailer.idle(), second.parts.mailer.idle()]);
      const kinds = await kindsTo(first.database.handle, user.email);
      expect(kinds).toEqual(['email_verify', ...Array(5).fill('alert_password_changed')]);
      await endWindow(first.database.handle, user.email);
      const written = await Promise.all([
        first.mailSummaries.summarizeDue(),
        second.parts.mailSummaries.summarizeDue(),
      ]);
      expect(written.sort()).toEqual([0, 1]);
      const mails = await outboxFor(first.database.handle, user.email);
      expect(mails.map((mail) => mail.kind).filter((kind) => kind === 'mail_summary')).toHaveLength(1);
      expect(mails.at(-1)?.text).toContain('3 messages were held back');
    });
  },
);
