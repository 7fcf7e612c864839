import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildAppWithParts } from '../../src/app.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/client.js';
import { closeTestApp, createTestApp, type TestApp, testConfig, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser, unique } from '../helpers/factories.js';
import { askGuardian, registerChild } from '../helpers/guardian.js';
import { expectOk, postForm } from '../helpers/http.js';
import { outboxFor } from '../helpers/mail.js';
import { deleteKeys, limitsEnv, newKeyPrefix, stores } from '../helpers/redis.js';

/** The caps under test (their defaults), with every other limit at its default too. */
const CAP = { RATE_LIMIT_MAIL_ADDRESS: '5/1h', RATE_LIMIT_MAIL_ALERTS: '3/1h' };

/** Six spellings of one address: one mailbox, one cap. */
function spellings(local: string, domain = 'example.com'): string[] {
  const upper = local.toUpperCase();
  const alternating = [...local].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
  const capital = `${upper.slice(0, 1)}${local.slice(1)}`;
  const second = `${local.slice(0, 1)}${upper.slice(1, 2)}${local.slice(2)}`;
  return [capital, second, upper, alternating, local, `${local}@${domain.toUpperCase()}`].map((spelling) =>
    spelling.includes('@') ? spelling : `${spelling}@${domain}`,
  );
}

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

describe.each(backends)(
  '%s: at most five mails an address an hour, three alerts of a kind an account',
  (backend) => {
    const ctx = useTestApp(backend, limitsEnv('memory', CAP));

    it('15 password changes mail 3 alerts, then one summary of the other 12 once the hour is over', async () => {
      const user = await verified(ctx.database.handle, await registerUser(ctx.app));
      await changePassword(ctx.app, user, 15);
      await ctx.mailer.idle();
      // Three alerts, then the cap (the sign-up's own verification mail is no signed-in action's: not counted).
      expect(await kindsTo(ctx.database.handle, user.email)).toEqual([
        'email_verify',
        ...Array(3).fill('alert_password_changed'),
      ]);
      // Nothing is summarised before the window is over.
      expect(await ctx.mailSummaries.summarizeDue()).toBe(0);
      await endWindow(ctx.database.handle, user.email);
      expect(await ctx.mailSummaries.summarizeDue()).toBe(1);
      expect(await ctx.mailSummaries.summarizeDue()).toBe(0);
      await ctx.mailer.idle();
      const mails = await outboxFor(ctx.database.handle, user.email);
      expect(mails).toHaveLength(5);
      const summary = mails.at(-1);
      expect(summary).toMatchObject({ kind: 'mail_summary', subject: 'More mail about your account' });
      expect(summary?.text).toContain('12 messages were held back');
      expect(summary?.text?.match(/: Your password was changed$/gm)).toHaveLength(12);
      expect(summary?.text).not.toContain('http');
    });

    capsOfOthers(() => ctx);

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
      expect(await kindsTo(ctx.database.handle, proven.email)).toEqual([
        'email_verify',
        'alert_email_changed',
      ]);
    });
  },
);

/**
 * What strangers can and cannot do to an owner's alerts, and the cap's one key for every spelling of an
 * address: run on each backend with the in-process store, and again with Redis.
 */
function capsOfOthers(app: () => TestApp) {
  it("sends the owner's alerts at once however much mail strangers sent to the address", async () => {
    const ctx = app();
    const owner = await verified(ctx.database.handle, await registerUser(ctx.app));
    // Two children ask "their guardian" at the owner's address, in every spelling: six mails, one over.
    const [local, domain] = owner.email.split('@') as [string, string];
    const addresses = spellings(local, domain);
    for (const child of [await registerChild(ctx.app), await registerChild(ctx.app)]) {
      for (const guardian of addresses.splice(0, 3)) {
        await askGuardian(ctx.app, ctx.database.handle, child, guardian);
      }
    }
    await ctx.mailer.idle();
    expect(await kindsTo(ctx.database.handle, owner.email)).toEqual([
      'email_verify',
      ...Array(5).fill('guardian_consent_request'),
    ]);
    // The address's hour is used up; the owner's own alert is not the strangers' to hold back.
    await changePassword(ctx.app, owner, 1);
    await ctx.mailer.idle();
    expect((await kindsTo(ctx.database.handle, owner.email)).at(-1)).toBe('alert_password_changed');
  });

  it('caps alerts per kind: a flood of one never holds back the alert of another', async () => {
    const ctx = app();
    const owner = await verified(ctx.database.handle, await registerUser(ctx.app));
    const previous = owner.email;
    await changePassword(ctx.app, owner, 5);
    const form = { email: `moved${unique()}@example.com`, current_password: owner.password };
    expectOk(await postForm(ctx.app, '/v1/user/update', form, bearer(owner.token)));
    await ctx.mailer.idle();
    expect(await kindsTo(ctx.database.handle, previous)).toEqual([
      'email_verify',
      ...Array(3).fill('alert_password_changed'),
      'alert_email_changed',
    ]);
  });

  it('counts every spelling of an address as the one address it is', async () => {
    const ctx = app();
    const attacker = await verified(ctx.database.handle, await registerUser(ctx.app));
    const own = attacker.email;
    const local = `victim${unique()}`;
    const addresses = spellings(local);
    expect(new Set(addresses).size).toBe(6);
    for (let i = 0; i < 12; i++) {
      for (const email of [addresses[i % addresses.length] as string, own]) {
        const form = { email, current_password: attacker.password };
        expectOk(await postForm(ctx.app, '/v1/user/update', form, bearer(attacker.token)));
      }
    }
    await ctx.mailer.idle();
    const mails = await outboxFor(ctx.database.handle, `${local}@example.com`);
    expect(mails.map((mail) => mail.kind)).toEqual(Array(5).fill('email_verify'));
    // Five spellings got the five mails; the rest of the twelve wait for one summary.
    expect(new Set(mails.map((mail) => mail.to_address)).size).toBe(5);
    await endWindow(ctx.database.handle, `${local}@example.com`);
    expect(await ctx.mailSummaries.summarizeDue()).toBe(1);
    const summaries = (await outboxFor(ctx.database.handle, `${local}@example.com`)).filter(
      (mail) => mail.kind === 'mail_summary',
    );
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.text).toContain('7 messages were held back');
  });
}

// Not runIf: a skipped suite's body still runs while the file is collected, and limitsEnv('redis') throws
// without REDIS_URL (the mutation run blanks it).
if (stores.includes('redis')) {
  describe.each(backends)('%s: the caps on Redis', (backend) => {
    const keyPrefix = newKeyPrefix();
    const ctx = useTestApp(backend, limitsEnv('redis', CAP, keyPrefix));
    afterAll(() => deleteKeys(keyPrefix));
    capsOfOthers(() => ctx);
  });
}

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
      expect(kinds).toEqual(['email_verify', ...Array(3).fill('alert_password_changed')]);
      await endWindow(first.database.handle, user.email);
      const written = await Promise.all([
        first.mailSummaries.summarizeDue(),
        second.parts.mailSummaries.summarizeDue(),
      ]);
      expect(written.sort()).toEqual([0, 1]);
      const mails = await outboxFor(first.database.handle, user.email);
      expect(mails.map((mail) => mail.kind).filter((kind) => kind === 'mail_summary')).toHaveLength(1);
      expect(mails.at(-1)?.text).toContain('5 messages were held back');
    });
  },
);
