import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectValidationError } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import {
  awayFromStepEdge,
  enableTotp,
  expectSecondFactorRequired,
  loginByEmail,
  secondFactor,
} from '../helpers/second-factor.js';
import { currentCode } from '../helpers/totp.js';

/**
 * A hostile client with the password: one challenge sent many times at once must yield one token, and one
 * code or recovery code must work once (PGlite has one connection; PostgreSQL shows the races).
 */
describe.each(backends)('%s: second-factor races', (backend) => {
  const ctx = useTestApp(backend);

  it('concurrent uses of one challenge give exactly one token', async () => {
    await awayFromStepEdge();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
    const code = currentCode(user.secret);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => secondFactor(ctx.app, { challenge, code })),
    );
    expect(answers.filter((res) => res.statusCode === 200)).toHaveLength(1);
    // The others find the challenge spent: the same 401 as a challenge that never existed.
    for (const res of answers.filter((r) => r.statusCode !== 200)) expectAuthenticationFailed(res);
    const tokens = await ctx.database.handle.db
      .selectFrom('api_tokens')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(tokens).toHaveLength(2);
  });

  it('one code on many challenges at once is accepted once; so is one recovery code', async () => {
    await awayFromStepEdge();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const challenges = [];
    for (let i = 0; i < 6; i++)
      challenges.push(expectSecondFactorRequired(await loginByEmail(ctx.app, user)));
    const code = currentCode(user.secret);
    const byCode = await Promise.all(
      challenges.slice(0, 3).map((challenge) => secondFactor(ctx.app, { challenge, code })),
    );
    expect(byCode.map((res) => res.statusCode).sort()).toEqual([200, 422, 422]);
    const recovery = user.recoveryCodes[0] as string;
    const byRecovery = await Promise.all(
      challenges.slice(3).map((challenge) => secondFactor(ctx.app, { challenge, recovery_code: recovery })),
    );
    expect(byRecovery.map((res) => res.statusCode).sort()).toEqual([200, 422, 422]);
    for (const res of byRecovery.filter((r) => r.statusCode === 422)) {
      expectValidationError(res, { recovery_code: ['The recovery code is invalid.'] });
    }
  });
});

describe.each(backends)('%s: wrong second-factor codes on the per-account limit', (backend) => {
  const ctx = useTestApp(backend, {
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_LOGIN_ACCOUNT: '4/1h',
    RATE_LIMIT_LOGIN_FAILURES: '1000/15m',
    RATE_LIMIT_LOGIN_IP: '1000/15m',
  });

  it('counts wrong codes across challenges, then refuses even the right one with 429', async () => {
    await awayFromStepEdge();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    const right = currentCode(user.secret);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 2; i++) {
      const challenge = expectSecondFactorRequired(await loginByEmail(ctx.app, user));
      for (let j = 0; j < 2; j++) {
        expectValidationError(await secondFactor(ctx.app, { challenge, code: wrong }), {
          code: ['The code is invalid.'],
        });
      }
    }
    expectTooManyRequests(await loginByEmail(ctx.app, user), 60 * 60);
  });
});
