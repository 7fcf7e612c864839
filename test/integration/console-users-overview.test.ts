import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import { AppMetrics } from '../../src/metrics/metrics.js';
import { buildConsoleUsers } from '../../src/services/console-users.js';
import { useTestApp } from '../helpers/app.js';
import { RecordingAccess, STAFF_ADDRESS, staff } from '../helpers/console-users.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { QueryRecorder } from '../helpers/query-recorder.js';
import { enableTotp } from '../helpers/second-factor.js';
import { buildTestServices } from '../helpers/services.js';

describe.each(backends)('%s: a user’s page in the console', (backend) => {
  const ctx = useTestApp(backend);

  /** The overview on a database handle whose statements are counted. */
  function build() {
    const services = buildTestServices(ctx);
    const recorder = new RecordingAccess();
    const statements = new QueryRecorder();
    const database = {
      ...ctx.infrastructure.database,
      db: ctx.infrastructure.database.db.withPlugin(statements),
    };
    const { userOverview } = buildConsoleUsers({
      config: ctx.config,
      deps: { ...ctx.infrastructure, database, log: pino({ level: 'silent' }), metrics: new AppMetrics() },
      users: services.users,
      posts: services.posts,
      activity: services.activity,
      verification: services.verification,
      scheduledDeletions: services.scheduledDeletions,
      secondFactorReset: services.secondFactorReset,
      recorder,
    });
    return { userOverview, recorder, statements };
  }

  it('shows each part of the account, masked, in one statement per part, recorded as one view', async () => {
    const { userOverview, recorder, statements } = build();
    const user = await enableTotp(ctx.app, await registerUser(ctx.app, { birth_date: '1990-04-05' }));
    const deviceId = `dev-${unique()}`;
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/device/update',
        { device_id: deviceId, platform: 'ios', push_token: `push-${unique()}` },
        bearer(user.token),
      ),
    );
    await ctx.database.handle.db
      .updateTable('users')
      .set({ phone: '+821012345678', phone_verified: true })
      .where('id', '=', user.id)
      .execute();
    statements.reset();
    const page = await userOverview.overview(staff('viewer'), user.id);
    expect(statements.count, 'the user, then one statement for each of the nine parts').toBe(10);
    expect(page.profile).toEqual({
      id: user.id,
      email: `${user.email[0]}***@${user.email.split('@')[1]}`,
      email_verified: false,
      phone: '010-****-5678',
      phone_verified: true,
      username: user.username,
      slug: user.slug,
      gender: expect.any(Number),
      is_inspirer: false,
      birth_year: '1990',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      disabled_at: null,
    });
    expect(page.sign_in).toEqual({ has_password: true, providers: [], passkeys: [], second_factor: true });
    expect(page.devices).toEqual([
      {
        device_id: deviceId,
        platform: 'ios',
        app_version: null,
        os_version: null,
        push_enabled: true,
        has_push_token: true,
        updated_at: expect.any(String),
      },
    ]);
    expect(page.sessions).toEqual([
      {
        id: expect.any(String),
        name: 'lightMyRequest',
        created_at: expect.any(String),
        last_used_at: expect.any(String),
        expires_at: null,
      },
    ]);
    expect(page.security_activity.map((event) => event.type)).toEqual(
      expect.arrayContaining(['account_created', 'second_factor_enabled']),
    );
    expect(page.consents.agreed).toEqual(expect.objectContaining({ terms: [expect.any(Number)] }));
    expect(page.consents.records).toEqual(
      expect.arrayContaining([
        {
          key: 'terms',
          version: expect.any(Number),
          agreed: true,
          at: expect.any(String),
          channel: expect.any(String),
        },
      ]),
    );
    expect(page.identity).toEqual({
      verified: false,
      verified_at: null,
      adult: true,
      foreigner: null,
      guardian_consent: null,
    });
    expect(page.deletion).toEqual({ scheduled: false, scheduled_at: null, due_at: null });
    expect(page.account_events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['user.created', 'session.created', 'second_factor.enabled']),
    );
    // Nothing secret: no hash, token, TOTP secret, CI or full address anywhere on the page.
    const text = JSON.stringify(page);
    for (const secret of [user.email, user.token, user.secret, '1990-04-05', 'password_hash', 'ci_hash']) {
      expect(text).not.toContain(secret);
    }
    expect(recorder.take()).toEqual([
      {
        actor: { kind: 'staff', id: staff('viewer').id },
        clientAddress: STAFF_ADDRESS,
        subjectId: user.id,
        action: 'users.view',
        outcome: 'ok',
      },
    ]);
  });

  it('answers an unknown or malformed id with a recorded 404', async () => {
    const { userOverview, recorder } = build();
    const nobody = '0193ffff-0000-7000-8000-000000000000';
    await expect(userOverview.overview(staff('content'), nobody)).rejects.toEqual(new NotFoundError('user'));
    await expect(userOverview.overview(staff('content'), 'nobody')).rejects.toEqual(
      new NotFoundError('user'),
    );
    const failed = (subjectId: string | null) => ({
      actor: { kind: 'staff', id: staff('content').id },
      clientAddress: STAFF_ADDRESS,
      subjectId,
      action: 'users.view',
      outcome: 'failed',
      detail: { error: 'not_found' },
    });
    expect(recorder.take()).toEqual([failed(nobody), failed(null)]);
  });
});
