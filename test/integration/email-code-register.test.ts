import { describe, expect, it } from 'vitest';
import { accountEventsOf } from '../helpers/account-events.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { codeMails, EMAIL_CODE_VERIFY, mailedCode } from '../helpers/email-code.js';
import { bearer, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { outboxFor } from '../helpers/mail.js';

type SignedIn = { user: Record<string, unknown> & { id: string; api_token: string } };

const REGISTER = '/v1/auth/register';
const INVALID_CODE = { code: ['The selected code is invalid.'] };

describe.each(backends)('%s: sign-up by a code mailed to the address', (backend) => {
  const ctx = useTestApp(backend);
  const form = (email: string, code: string) =>
    registrationForm({ type: 'email_code', email, code, password: undefined });

  it('creates a verified account without a password; the code works once', async () => {
    const email = `code${unique()}@example.com`;
    const { code } = await mailedCode(ctx, email, 'register');
    const [mail] = await codeMails(ctx, email);
    expect(mail?.text).toMatch(/^http:\/\/localhost:8080\/signup\?code=[A-Za-z0-9_-]{43}$/m);
    const fields = form(email, code);
    const { user } = expectOk<SignedIn>(await postForm(ctx.app, REGISTER, fields));
    expect(user).toMatchObject({
      email,
      username: fields.username,
      email_verified: true,
      has_password: false,
    });
    // The code proved the address: no verification mail follows.
    expect((await outboxFor(ctx.database.handle, email)).map((row) => row.kind)).toEqual(['email_code']);
    const events = await accountEventsOf(ctx.database.handle, user.id);
    expect(events.find((event) => event.type === 'user.created')?.data).toMatchObject({
      method: 'email_code',
    });
    expect(events.find((event) => event.type === 'session.created')?.data).toMatchObject({
      method: 'email_code',
    });
    // A used code, for an address that now has its account: both named.
    expectValidationError(await postForm(ctx.app, REGISTER, form(email, code)), {
      ...INVALID_CODE,
      email: ['The email has already been taken.'],
    });
  });

  it("takes the link's token for the code, only for the address it was mailed to", async () => {
    const email = `code${unique()}@example.com`;
    const other = `code${unique()}@example.com`;
    const { token } = await mailedCode(ctx, email, 'register');
    expectValidationError(await postForm(ctx.app, REGISTER, form(other, token)), INVALID_CODE);
    expect(expectOk<SignedIn>(await postForm(ctx.app, REGISTER, form(email, token))).user.email).toBe(email);
  });

  it('gives the code back when the sign-up is refused, so the corrected form goes through', async () => {
    const taken = await registerUser(ctx.app);
    const email = `code${unique()}@example.com`;
    const { code } = await mailedCode(ctx, email, 'register');
    expectValidationError(
      await postForm(ctx.app, REGISTER, { ...form(email, code), username: taken.username }),
      {
        username: ['The username has already been taken.'],
      },
    );
    expectOk(await postForm(ctx.app, REGISTER, form(email, code)));
  });

  it('refuses a wrong code, a login code and a missing one, each on the code field', async () => {
    const email = `code${unique()}@example.com`;
    const { code } = await mailedCode(ctx, email, 'register');
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expectValidationError(await postForm(ctx.app, REGISTER, form(email, wrong)), INVALID_CODE);
    const member = await registerUser(ctx.app);
    const login = await mailedCode(ctx, member.email, 'login');
    expectValidationError(await postForm(ctx.app, REGISTER, form(member.email, login.code)), {
      ...INVALID_CODE,
      email: ['The email has already been taken.'],
    });
    const { code: _code, ...withoutCode } = form(email, code);
    expectValidationError(await postForm(ctx.app, REGISTER, withoutCode), {
      code: ['The code field is required when type is email_code.'],
    });
    expectValidationError(await postForm(ctx.app, REGISTER, form(email, '12a456')), {
      code: ['The code format is invalid.'],
    });
  });

  it('lets an account of codes alone set a password from a session made by a code', async () => {
    const email = `code${unique()}@example.com`;
    const signUp = await mailedCode(ctx, email, 'register');
    expectOk(await postForm(ctx.app, REGISTER, form(email, signUp.code)));
    const { code } = await mailedCode(ctx, email, 'login');
    const session = expectOk<SignedIn>(await postForm(ctx.app, EMAIL_CODE_VERIFY, { email, code }));
    const password = `Fresh-Lantern-${unique()}`;
    const updated = expectOk<{ user: { has_password: boolean } }>(
      await postForm(ctx.app, '/v1/user/update', { password }, bearer(session.user.api_token)),
    );
    expect(updated.user.has_password).toBe(true);
    expectOk(await postForm(ctx.app, '/v1/auth/login/email', { email, password }));
  });
});
