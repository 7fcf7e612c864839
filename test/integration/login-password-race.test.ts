import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SignIn } from '../../src/account/sign-in/service.js';
import { buildApp } from '../../src/app.js';
import { InvalidCredentialsError } from '../../src/errors.js';
import { PasswordHasher } from '../../src/lib/passwords.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { buildTestServices } from '../helpers/services.js';

/**
 * A login checks the password outside any transaction (argon2 is slow). A password change that commits in
 * that gap must win: the login proved the old password and gets no token.
 */
describe.each(backends)('%s: a login racing a password change', (backend) => {
  const ctx = useTestApp(backend);

  /** A hasher whose verification lets the password change happen while it "hashes". */
  class RacingHasher extends PasswordHasher {
    duringVerify: () => Promise<void> = async () => {};
    override async verify(storedHash: string, password: string): Promise<boolean> {
      const matches = await super.verify(storedHash, password);
      await this.duringVerify();
      return matches;
    }
  }

  function service(hasher: PasswordHasher): SignIn {
    return buildTestServices(ctx, { hasher }).signIn;
  }

  const tokenCount = async (userId: string) =>
    Number(
      (
        await sql<{ n: number }>`SELECT count(*)::int AS n FROM api_tokens WHERE user_id = ${userId}`.execute(
          ctx.database.handle.db,
        )
      ).rows[0]?.n,
    );

  it('issues no token when the password changed while the old one was being checked', async () => {
    const user = await registerUser(ctx.app);
    const hasher = new RacingHasher(ctx.config.argon2);
    const newHash = await hasher.hash('A-Brand-New-Passphrase-1');
    hasher.duringVerify = async () => {
      await sql`UPDATE users SET password_hash = ${newHash} WHERE id = ${user.id}`.execute(
        ctx.database.handle.db,
      );
    };
    const before = await tokenCount(user.id);
    await expect(
      service(hasher).loginWithEmail(user.email, user.password, { userAgent: 't', ip: '127.0.0.1' }),
    ).rejects.toBeInstanceOf(InvalidCredentialsError);
    expect(await tokenCount(user.id)).toBe(before);
  });

  it('issues the token when a parallel login upgraded the hash of the same password in between', async () => {
    const user = await registerUser(ctx.app);
    const raisedCost = { ...ctx.config.argon2, memoryKib: ctx.config.argon2.memoryKib * 2 };
    const upgraded = await new PasswordHasher(raisedCost).hash(user.password);
    const hasher = new RacingHasher(raisedCost);
    hasher.duringVerify = async () => {
      await sql`UPDATE users SET password_hash = ${upgraded} WHERE id = ${user.id}`.execute(
        ctx.database.handle.db,
      );
    };
    const before = await tokenCount(user.id);
    const signedIn = await service(hasher).loginWithEmail(user.email, user.password, {
      userAgent: 't',
      ip: '::1',
    });
    expect(signedIn.user.id).toBe(user.id);
    expect(await tokenCount(user.id)).toBe(before + 1);
  });

  it('signs in every one of several parallel logins that all upgrade the same hash', async () => {
    const user = await registerUser(ctx.app);
    const raised = await buildApp(testConfig({ ARGON2_MEMORY_KIB: '2048' }, ctx.dataDir), {
      database: ctx.database.handle,
    });
    try {
      const before = await tokenCount(user.id);
      const responses = await Promise.all(
        Array.from({ length: 4 }, () =>
          postForm(raised, '/v1/auth/login/email', { email: user.email, password: user.password }),
        ),
      );
      for (const res of responses) expectOk(res);
      expect(await tokenCount(user.id)).toBe(before + 4);
    } finally {
      await raised.close();
    }
  });

  it('issues the token when nothing changed in between', async () => {
    const user = await registerUser(ctx.app);
    const before = await tokenCount(user.id);
    const signedIn = await service(new RacingHasher(ctx.config.argon2)).loginWithEmail(
      user.email,
      user.password,
      {
        userAgent: 't',
        ip: '127.0.0.1',
      },
    );
    expect(signedIn.user.id).toBe(user.id);
    expect(await tokenCount(user.id)).toBe(before + 1);
  });
});
