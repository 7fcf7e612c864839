import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { download, readyExport } from '../helpers/data-export.js';
import { backends } from '../helpers/database.js';
import { bearer, type RegisteredUser, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { enableTotp } from '../helpers/second-factor.js';
import { eventsOf } from '../helpers/security-events.js';
import { currentCode } from '../helpers/totp.js';
import { PASSKEY_ENV, PASSKEY_ORIGIN, passkeyFlows, SoftwareAuthenticator } from '../helpers/webauthn.js';
import { readZip } from '../helpers/zip.js';

/** Everything beyond the profile and the posts: consents, security events, factors, links, pushes. */
describe.each(backends)('%s: what the data export holds', (backend) => {
  const ctx = useTestApp(backend, PASSKEY_ENV);

  async function exportOf(user: RegisteredUser) {
    const ready = await readyExport(ctx, user);
    expect(ready.status).toBe('ready');
    const res = await download(ctx, ready.download_url ?? '');
    expect(res.statusCode).toBe(200);
    const zip = await readZip(res.rawPayload);
    const json = async (name: string) => JSON.parse((await zip.read(name)).toString('utf8'));
    return { zip, json, text: res.rawPayload };
  }

  it('holds the consent history, the security events and every other user-linked table, without secrets', async () => {
    const user = await registerUser(ctx.app, { consent_marketing_email: 'on' } as never);
    expectOk(
      await postForm(ctx.app, '/v1/user/consents/update', { marketing_email: 'off' }, bearer(user.token)),
    );
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/device/update',
        { device_id: 'phone-1', platform: 'ios', locale: 'ko-KR', push_token: `push-${user.id}` },
        bearer(user.token),
      ),
    );
    expectOk(await postForm(ctx.app, '/v1/test/notification', {}, bearer(user.token)));
    const twoFactor = await enableTotp(ctx.app, user);
    const authenticator = new SoftwareAuthenticator(PASSKEY_ORIGIN);
    // A passkey on an account with a second factor: after a re-authentication with the password and a code.
    const twoFactors = { current_password: user.password, code: currentCode(twoFactor.secret) };
    expectOk(await postForm(ctx.app, '/v1/user/reauth', twoFactors, bearer(user.token)));
    await passkeyFlows(ctx.app).addPasskey(user.token, authenticator, {}, 'My phone');
    await ctx.database.handle.db
      .insertInto('provider_accounts')
      .values({ user_id: user.id, provider: 'gamma', provider_user_id: `gamma-${user.id}` })
      .execute();

    const { zip, json } = await exportOf(user);
    expect(zip.names).toEqual(
      expect.arrayContaining([
        'account.json',
        'consents.json',
        'security_events.json',
        'notifications.json',
        'posts.json',
        'likes.json',
      ]),
    );

    // Every consent record as stored, by document and then in the order they were made.
    const consents = await json('consents.json');
    const stored = await ctx.database.handle.db
      .selectFrom('consent_records')
      .select(['key', 'version', 'agreed', 'channel', 'client_address'])
      .where('user_id', '=', user.id)
      .orderBy('key')
      .orderBy('id')
      .execute();
    expect(stored.length).toBe(4);
    expect(consents).toEqual(
      stored.map((record) => ({ ...record, at: expect.any(String), reminded_at: null })),
    );
    expect(consents.filter((c: { key: string }) => c.key === 'marketing_email')).toEqual([
      expect.objectContaining({ agreed: true, channel: 'register', client_address: '127.0.0.1' }),
      expect.objectContaining({ agreed: false, channel: 'update', client_address: '127.0.0.1' }),
    ]);

    // Every kept security event, newest first, with its address, user agent and details.
    const events = await json('security_events.json');
    const logged = await eventsOf(ctx.database.handle, user.id);
    expect(events.map((e: { type: string }) => e.type)).toEqual(logged.map((e) => e.type).reverse());
    expect(events).toContainEqual({
      type: 'consent_changed',
      at: expect.any(String),
      ip: '127.0.0.1',
      user_agent: expect.any(String),
      details: { channel: 'update', marketing_email: false },
    });

    const pushes = await json('notifications.json');
    expect(pushes).toEqual([
      expect.objectContaining({ device_id: 'phone-1', status: 'sent', title: expect.any(String) }),
    ]);

    const account = await json('account.json');
    expect(account.devices).toEqual([expect.objectContaining({ device_id: 'phone-1', locale: 'ko-KR' })]);
    expect(account.linked_providers).toEqual([
      { provider: 'gamma', provider_user_id: `gamma-${user.id}`, linked_at: expect.any(String) },
    ]);
    expect(account.passkeys).toEqual([
      { name: 'My phone', created_at: expect.any(String), last_used_at: null },
    ]);
    expect(account.second_factor).toEqual({
      enabled: true,
      enabled_at: expect.any(String),
      recovery_codes_left: twoFactor.recoveryCodes.length,
    });
    expect(account.deletion).toEqual({ scheduled: false, scheduled_at: null, due_at: null });
    expect(account.one_time_links).toEqual([
      expect.objectContaining({ purpose: 'email_verify', email: user.email, used_at: null }),
    ]);
    expect(account.data_exports).toEqual([
      expect.objectContaining({ status: 'pending', ready_at: null, expires_at: null }),
    ]);

    // No secret anywhere: no token, push token, second-factor secret, recovery code, passkey key or hash.
    const text = (await Promise.all(zip.names.filter((n) => n.endsWith('.json')).map(zip.read)))
      .map((bytes) => bytes.toString('utf8'))
      .join('\n');
    const [credential] = authenticator.credentials;
    if (!credential) throw new Error('no passkey made');
    for (const secret of [
      user.token,
      `push-${user.id}`,
      twoFactor.secret,
      ...twoFactor.recoveryCodes,
      credential.id.toString('base64url'),
      credential.cose.toString('base64url'),
      credential.cose.toString('base64'),
      'token_hash',
      'code_hash',
      'public_key',
      'argon2',
    ]) {
      expect(text).not.toContain(secret);
    }
  }, 60_000);

  it('reads long histories a page at a time, every row once', async () => {
    const user = await registerUser(ctx.app);
    // 450 withdrawals and agreements more than the two sign-up records: three pages and a short one.
    await sql`INSERT INTO consent_records (user_id, key, version, agreed, channel, client_address)
      SELECT ${user.id}::uuid, k.key, 1, n % 2 = 0, 'update', '10.0.0.' || (n % 250)
      FROM generate_series(1, 450) AS n
      CROSS JOIN LATERAL (SELECT CASE WHEN n % 3 = 0 THEN 'marketing_sms' ELSE 'night_push' END AS key) k`.execute(
      ctx.database.handle.db,
    );
    await sql`INSERT INTO security_events (id, user_id, type, at, ip, details)
      SELECT gen_random_uuid(), ${user.id}::uuid, 'sign_in', now() - make_interval(secs => n), '10.1.0.1',
        jsonb_build_object('method', 'email', 'n', n)
      FROM generate_series(1, 430) AS n`.execute(ctx.database.handle.db);

    // Pushes microseconds apart: a page may end inside a millisecond, and none is read twice or lost.
    await sql`INSERT INTO notification_outbox (id, user_id, device_id, payload, status, created_at)
      SELECT gen_random_uuid(), ${user.id}::uuid, 'phone-' || n,
        jsonb_build_object('title', 'T', 'body', 'B' || n, 'data', '{}'::jsonb), 'sent',
        date_trunc('milliseconds', now()) + make_interval(secs => n * 0.000003)
      FROM generate_series(1, 250) AS n`.execute(ctx.database.handle.db);

    const { json } = await exportOf(user);
    const pushes: { body: string }[] = await json('notifications.json');
    expect(pushes.map((push) => push.body)).toEqual(Array.from({ length: 250 }, (_, i) => `B${i + 1}`));
    const consents: { key: string; client_address: string }[] = await json('consents.json');
    expect(consents).toHaveLength(452);
    const keys = consents.map((c) => c.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys.filter((k) => k === 'marketing_sms')).toHaveLength(150);

    const events: { type: string; at: string; details: { n?: number } }[] =
      await json('security_events.json');
    const signIns = events.filter((e) => e.type === 'sign_in' && e.details.n !== undefined);
    expect(signIns).toHaveLength(430);
    expect(new Set(signIns.map((e) => e.details.n)).size).toBe(430);
    // Newest first.
    const times = events.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  }, 60_000);
});
