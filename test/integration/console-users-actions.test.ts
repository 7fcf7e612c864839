import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AccessEntry } from '../../src/account/console-users/staff-access.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../src/errors.js';
import { envelopeFor, errorCode } from '../../src/http/errors.js';
import { useTestApp } from '../helpers/app.js';
import { buildTestConsoleUsers, STAFF_ADDRESS, staff } from '../helpers/console-users.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, UNAUTHENTICATED } from '../helpers/http.js';
import { outboxFor } from '../helpers/mail.js';
import { enableTotp, loginByEmail } from '../helpers/second-factor.js';

const REASON = 'Ticket 4711: the user asked by phone';

/** One access record of a support action on `subjectId`. */
const record = (
  action: string,
  subjectId: string | null,
  outcome: AccessEntry['outcome'],
  detail?: Record<string, unknown>,
  role: 'support' | 'viewer' = 'support',
): AccessEntry => ({
  actor: { kind: 'staff', id: staff(role).id },
  clientAddress: STAFF_ADDRESS,
  subjectId,
  action,
  reason: REASON,
  outcome,
  ...(detail ? { detail } : {}),
});

describe.each(backends)('%s: support staff act on a user', (backend) => {
  const ctx = useTestApp(backend, { DELETION_GRACE_DAYS: '14' });
  const me = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) });
  const expectSignedOut = (res: LightMyRequestResponse) => expectError(res, 401, ...UNAUTHENTICATED);

  it('disables and enables the account: its tokens stop and work again, each step recorded', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app);
    const disabled = await userActions.disable(staff('support'), user.id, { reason: REASON });
    expect(disabled).toEqual({ disabled_at: expect.any(String) });
    expectSignedOut(await me(user.token));
    expect(await userActions.enable(staff('support'), user.id, { reason: REASON })).toEqual({
      disabled_at: null,
    });
    expectOk(await me(user.token));
    expect(recorder.take()).toEqual([
      record('users.disable', user.id, 'ok', disabled),
      record('users.enable', user.id, 'ok', { disabled_at: null }),
    ]);
  });

  it('refuses a viewer (recorded as refused, nothing done) and a missing reason (422 on reason, unrecorded)', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app);
    await expect(userActions.disable(staff('viewer'), user.id, { reason: REASON })).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    expectOk(await me(user.token));
    expect(recorder.take()).toEqual([
      record('users.disable', user.id, 'refused', { permission: 'users.act' }, 'viewer'),
    ]);
    const refusal = await userActions
      .revokeAllSessions(staff('support'), user.id, {})
      .catch((error) => error);
    expect(refusal).toEqual(new ValidationError({ reason: [{ rule: 'required' }] }));
    expect(envelopeFor(errorCode(refusal), refusal)).toEqual({
      meta: { code: 422, error_type: 'ValidationException', error_message: 'Unprocessable Entity' },
      data: { reason: ['The reason field is required.'] },
    });
    expect(recorder.take()).toEqual([]);
    expectOk(await me(user.token));
  });

  it('revokes one session of the user, then all; another user’s session is a recorded 404', async () => {
    const { recorder, userActions, userOverview } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app);
    const second = expectOk<{ user: { api_token: string } }>(await loginByEmail(ctx.app, user)).user
      .api_token;
    const third = expectOk<{ user: { api_token: string } }>(await loginByEmail(ctx.app, user)).user.api_token;
    const other = await registerUser(ctx.app);
    const sessions = (await userOverview.overview(staff('support'), user.id)).sessions;
    const [newest] = sessions;
    const otherSession = (await userOverview.overview(staff('support'), other.id)).sessions[0];
    recorder.take();
    expect(
      await userActions.revokeSession(staff('support'), user.id, newest?.id ?? '', { reason: REASON }),
    ).toEqual({
      revoked: 1,
    });
    expectSignedOut(await me(third));
    expectOk(await me(second));
    await expect(
      userActions.revokeSession(staff('support'), user.id, otherSession?.id ?? '', { reason: REASON }),
    ).rejects.toEqual(new NotFoundError('session'));
    expectOk(await me(other.token));
    expect(await userActions.revokeAllSessions(staff('support'), user.id, { reason: REASON })).toEqual({
      revoked: 2,
    });
    expectSignedOut(await me(user.token));
    expectSignedOut(await me(second));
    expect(recorder.take()).toEqual([
      record('users.revoke_session', user.id, 'ok', { session_id: newest?.id }),
      record('users.revoke_session', user.id, 'failed', { error: 'not_found' }),
      record('users.revoke_sessions', user.id, 'ok', { revoked: 2 }),
    ]);
  });

  it('resets the second factor: the password alone signs in again', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await enableTotp(ctx.app, await registerUser(ctx.app));
    expect((await loginByEmail(ctx.app, user)).statusCode).toBe(401);
    expect(await userActions.resetSecondFactor(staff('support'), user.id, { reason: REASON })).toEqual({
      outcome: 'disabled',
    });
    expectOk(await loginByEmail(ctx.app, user));
    expect(await userActions.resetSecondFactor(staff('support'), user.id, { reason: REASON })).toEqual({
      outcome: 'nothing',
    });
    expect(recorder.take()).toEqual([
      record('users.reset_second_factor', user.id, 'ok', { outcome: 'disabled' }),
      record('users.reset_second_factor', user.id, 'ok', { outcome: 'nothing' }),
    ]);
  });

  it('resends the verification mail to an unverified address', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app);
    const before = (await outboxFor(ctx.database.handle, user.email)).filter(
      (mail) => mail.kind === 'email_verify',
    );
    expect(await userActions.resendVerification(staff('support'), user.id, { reason: REASON })).toEqual({
      status: 'sent',
    });
    const after = (await outboxFor(ctx.database.handle, user.email)).filter(
      (mail) => mail.kind === 'email_verify',
    );
    expect(after).toHaveLength(before.length + 1);
    expect(recorder.take()).toEqual([record('users.resend_verification', user.id, 'ok', { status: 'sent' })]);
  });

  it('schedules a deletion and takes it back; the user signs in again afterwards', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app);
    const scheduled = await userActions.scheduleDeletion(staff('support'), user.id, { reason: REASON });
    expect(scheduled).toEqual({ scheduled: true, due_at: expect.any(String) });
    expectSignedOut(await me(user.token));
    expect((await loginByEmail(ctx.app, user)).statusCode).toBe(409);
    expect(await userActions.cancelDeletion(staff('support'), user.id, { reason: REASON })).toEqual({
      cancelled: true,
    });
    expectOk(await loginByEmail(ctx.app, user));
    expect(await userActions.cancelDeletion(staff('support'), user.id, { reason: REASON })).toEqual({
      cancelled: false,
    });
    expect(recorder.take()).toEqual([
      record('users.schedule_deletion', user.id, 'ok', scheduled),
      record('users.cancel_deletion', user.id, 'ok', { cancelled: true }),
      record('users.cancel_deletion', user.id, 'ok', { cancelled: false }),
    ]);
  });

  it('changes the username and slug by the API’s rules', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app);
    const taken = await registerUser(ctx.app);
    const renamed = { username: `${user.username}x`, slug: `${user.slug}-x` };
    expect(await userActions.rename(staff('support'), user.id, { ...renamed, reason: REASON })).toEqual(
      renamed,
    );
    expect(expectOk<{ user: { username: string } }>(await me(user.token)).user.username).toBe(
      renamed.username,
    );
    await expect(
      userActions.rename(staff('support'), user.id, {
        username: taken.username.toUpperCase(),
        slug: 'a b',
        reason: REASON,
      }),
    ).rejects.toEqual(
      new ValidationError({
        username: [{ rule: 'unique' }],
        slug: [{ rule: 'min.string', params: { min: 4 } }],
      }),
    );
    // The user's own name re-cased is no conflict.
    const recased = { username: renamed.username.toUpperCase() };
    expect(await userActions.rename(staff('support'), user.id, { ...recased, reason: REASON })).toEqual({
      username: recased.username,
      slug: renamed.slug,
    });
    expect(recorder.take()).toEqual([
      record('users.rename', user.id, 'ok', {
        before: { username: user.username, slug: user.slug },
        after: renamed,
      }),
      record('users.rename', user.id, 'failed', { error: 'validation_failed' }),
      record('users.rename', user.id, 'ok', {
        before: renamed,
        after: { username: recased.username, slug: renamed.slug },
      }),
    ]);
  });

  it('shows one masked field in full to support, recorded with the field; an unknown user is a recorded 404', async () => {
    const { recorder, userActions } = buildTestConsoleUsers(ctx);
    const user = await registerUser(ctx.app, { birth_date: '1991-02-03' });
    await ctx.database.handle.db
      .updateTable('users')
      .set({ phone: '+821012345678' })
      .where('id', '=', user.id)
      .execute();
    const input = { field: 'email', reason: REASON };
    expect(await userActions.reveal(staff('support'), user.id, input)).toEqual({
      field: 'email',
      value: user.email,
    });
    expect(await userActions.reveal(staff('support'), user.id, { ...input, field: 'birth_date' })).toEqual({
      field: 'birth_date',
      value: '1991-02-03',
    });
    expect(await userActions.reveal(staff('support'), user.id, { ...input, field: 'phone' })).toEqual({
      field: 'phone',
      value: '+821012345678',
    });
    await expect(userActions.reveal(staff('viewer'), user.id, input)).rejects.toBeInstanceOf(ForbiddenError);
    const nobody = '0193ffff-0000-7000-8000-000000000000';
    await expect(userActions.reveal(staff('support'), nobody, input)).rejects.toEqual(
      new NotFoundError('user'),
    );
    expect(recorder.take()).toEqual([
      record('users.reveal', user.id, 'ok', { field: 'email' }),
      record('users.reveal', user.id, 'ok', { field: 'birth_date' }),
      record('users.reveal', user.id, 'ok', { field: 'phone' }),
      record('users.reveal', user.id, 'refused', { permission: 'users.unmask' }, 'viewer'),
      record('users.reveal', nobody, 'failed', { error: 'not_found' }),
    ]);
  });
});
