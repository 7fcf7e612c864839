import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { eventsOf } from '../helpers/security-events.js';
import { buildTestServices } from '../helpers/services.js';

interface UserConsent {
  key: string;
  version: number | null;
  agreed: boolean;
  agreed_at: string | null;
  withdrawn_at: string | null;
  required: boolean;
  current_version: number;
}

interface RecordRow {
  key: string;
  version: number;
  agreed: boolean;
  channel: string;
  client_address: string | null;
}

const OPTIONAL = ['marketing_email', 'marketing_push', 'marketing_sms', 'night_push'];

describe.each(backends)('%s: consent documents and records', (backend) => {
  const ctx = useTestApp(backend);
  const db = () => ctx.database.handle.db;

  const recordsOf = async (userId: string): Promise<RecordRow[]> =>
    db()
      .selectFrom('consent_records')
      .select(['key', 'version', 'agreed', 'channel', 'client_address'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .orderBy('key')
      .execute();

  const consentsOf = async (token: string) =>
    expectOk<{ consents: UserConsent[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/consents', headers: bearer(token) }),
    ).consents;

  const update = (token: string, body: Record<string, string>) =>
    postForm(ctx.app, '/v1/user/consents/update', body, bearer(token));

  const userGet = async (token: string, headers: Record<string, string> = {}) =>
    expectOk<{ user: Record<string, unknown> & { pending_consents: unknown[] } }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: { ...bearer(token), ...headers } }),
    ).user;

  it('lists the documents of a fresh install in English, and in Korean for ko', async () => {
    const en = expectOk<{ documents: Record<string, unknown>[] }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/consents/documents' }),
    ).documents;
    expect(en.map((doc) => [doc.key, doc.version, doc.required])).toEqual([
      ['privacy', 1, true],
      ['terms', 1, true],
      ['marketing_email', 1, false],
      ['marketing_push', 1, false],
      ['marketing_sms', 1, false],
      ['night_push', 1, false],
    ]);
    expect(en[1]).toEqual({
      key: 'terms',
      version: 1,
      title: 'Terms of Service',
      url: '/legal/terms/1/en',
      required: true,
    });
    const ko = expectOk<{ documents: Record<string, unknown>[] }>(
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/consents/documents',
        headers: { 'accept-language': 'ko-KR,ko;q=0.9,en;q=0.8' },
      }),
    ).documents;
    expect(ko[1]).toMatchObject({ key: 'terms', title: '서비스 이용약관', url: '/legal/terms/1/ko' });
  });

  it('records the required documents for an old client that sends only user_agreement, answer unchanged', async () => {
    const me = await registerUser(ctx.app);
    expect(Object.keys(me.user)).not.toContain('pending_consents');
    expect(await recordsOf(me.id)).toEqual([
      { key: 'privacy', version: 1, agreed: true, channel: 'register', client_address: '127.0.0.1' },
      { key: 'terms', version: 1, agreed: true, channel: 'register', client_address: '127.0.0.1' },
    ]);
    expect(await userGet(me.token)).toMatchObject({ id: me.id, pending_consents: [] });
  });

  it('keeps the old 422 when user_agreement is missing or not accepted, and writes nothing', async () => {
    const form = registrationForm({ user_agreement: 'no' });
    expectValidationError(await postForm(ctx.app, '/v1/auth/register', form), {
      user_agreement: ['The user agreement must be accepted.'],
    });
    expectValidationError(
      await postForm(ctx.app, '/v1/auth/register', registrationForm({ user_agreement: undefined })),
      { user_agreement: ['The user agreement field is required.'] },
    );
  });

  it('records the optional documents ticked at sign-up, and none refused', async () => {
    const me = await registerUser(ctx.app, {
      consent_marketing_email: 'on',
      consent_night_push: 'yes',
      consent_marketing_sms: 'off',
    } as never);
    const records = await recordsOf(me.id);
    expect(records.map((r) => r.key).sort()).toEqual(['marketing_email', 'night_push', 'privacy', 'terms']);
    const consents = await consentsOf(me.token);
    expect(consents.find((c) => c.key === 'marketing_email')).toEqual({
      key: 'marketing_email',
      version: 1,
      agreed: true,
      agreed_at: expect.any(String),
      withdrawn_at: null,
      required: false,
      current_version: 1,
    });
    expect(consents.find((c) => c.key === 'marketing_sms')).toEqual({
      key: 'marketing_sms',
      version: null,
      agreed: false,
      agreed_at: null,
      withdrawn_at: null,
      required: false,
      current_version: 1,
    });
  });

  it('refuses a consent field that names no optional document, with every taken field, writing nothing', async () => {
    const holder = await registerUser(ctx.app);
    const form = registrationForm({
      email: holder.email,
      consent_terms: 'on',
      consent_nothing_here: 'on',
      consent_marketing_push: 'maybe',
    });
    expectValidationError(await postForm(ctx.app, '/v1/auth/register', form), {
      email: ['The email has already been taken.'],
      consent_terms: ['The selected consent terms is invalid.'],
      consent_nothing_here: ['The selected consent nothing here is invalid.'],
      consent_marketing_push: ['The consent marketing push field must be true or false.'],
    });
    const written = await db()
      .selectFrom('users')
      .select('id')
      .where('username', '=', form.username)
      .execute();
    expect(written).toEqual([]);
  });

  it('agrees and withdraws through user/consents/update, appending a row for each', async () => {
    const me = await registerUser(ctx.app);
    const agreed = expectOk<{ consents: UserConsent[] }>(
      await update(me.token, { marketing_push: 'on', marketing_sms: 'off', unrelated: 'x' }),
    ).consents;
    expect(agreed.find((c) => c.key === 'marketing_push')).toMatchObject({ agreed: true, version: 1 });
    const withdrawn = expectOk<{ consents: UserConsent[] }>(
      await update(me.token, { marketing_push: 'off', channel: 'web' }),
    ).consents;
    expect(withdrawn.find((c) => c.key === 'marketing_push')).toEqual({
      key: 'marketing_push',
      version: 1,
      agreed: false,
      agreed_at: null,
      withdrawn_at: expect.any(String),
      required: false,
      current_version: 1,
    });
    // marketing_sms was never agreed to: its `off` withdraws nothing and writes nothing.
    expect((await recordsOf(me.id)).slice(2)).toEqual([
      { key: 'marketing_push', version: 1, agreed: true, channel: 'update', client_address: '127.0.0.1' },
      { key: 'marketing_push', version: 1, agreed: false, channel: 'web', client_address: '127.0.0.1' },
    ]);
  });

  it('logs each consent change once with its keys and channel; a refused or empty change logs none', async () => {
    const me = await registerUser(ctx.app);
    const changes = async () =>
      (await eventsOf(ctx.database.handle, me.id)).filter((event) => event.type === 'consent_changed');
    expectOk(await update(me.token, { marketing_push: 'on', marketing_sms: 'off' }));
    expectOk(await update(me.token, { marketing_email: 'off' }));
    expectValidationError(await update(me.token, { terms: 'off', marketing_push: 'off' }), {
      terms: ['The terms consent is required and cannot be withdrawn; to withdraw it, delete the account.'],
    });
    expectOk(await update(me.token, { marketing_push: 'off', channel: 'web' }));
    expect((await changes()).map((event) => event.details)).toEqual([
      { channel: 'update', marketing_push: true },
      { channel: 'web', marketing_push: false },
    ]);
  });

  it('refuses to withdraw a required document (en and ko), a bad value and a bad channel', async () => {
    const me = await registerUser(ctx.app);
    expectValidationError(
      await update(me.token, { terms: 'off', marketing_email: 'perhaps', channel: 'x' }),
      {
        channel: ['The selected channel is invalid.'],
      },
    );
    expectValidationError(await update(me.token, { terms: 'off', marketing_email: 'perhaps' }), {
      terms: ['The terms consent is required and cannot be withdrawn; to withdraw it, delete the account.'],
      marketing_email: ['The marketing email field must be true or false.'],
    });
    const ko = await postForm(
      ctx.app,
      '/v1/user/consents/update',
      { privacy: 'off' },
      {
        ...bearer(me.token),
        'accept-language': 'ko',
      },
    );
    expectValidationError(ko, {
      privacy: ['개인정보 수집·이용 동의는 필수 항목이라 철회할 수 없습니다. 철회하려면 계정을 삭제하세요.'],
    });
    expect(await recordsOf(me.id)).toHaveLength(2);
  });

  it('asks for a new version of a required document in user/get until the user agrees to it', async () => {
    const me = await registerUser(ctx.app);
    // Published through the service `accounts consent publish` calls (the CLI test covers the command).
    await buildTestServices(ctx).consents.publish({
      key: 'terms',
      version: 2,
      required: true,
      texts: { en: { title: 'Terms of Service (2)', url: '/legal/terms/2/en' } },
    });
    const pending = (await userGet(me.token, { 'accept-language': 'ko' })).pending_consents;
    // Published in English only: Korean clients get the English text.
    expect(pending).toEqual([
      { key: 'terms', version: 2, title: 'Terms of Service (2)', url: '/legal/terms/2/en' },
    ]);
    expect((await consentsOf(me.token)).find((c) => c.key === 'terms')).toMatchObject({
      version: 1,
      agreed: true,
      current_version: 2,
    });
    expectOk(await update(me.token, { terms: 'on' }));
    expect((await userGet(me.token)).pending_consents).toEqual([]);
    expect((await recordsOf(me.id)).at(-1)).toEqual({
      key: 'terms',
      version: 2,
      agreed: true,
      channel: 'update',
      client_address: '127.0.0.1',
    });
  });

  it('refuses arrays and objects where a consent value goes, writing nothing', async () => {
    const me = await registerUser(ctx.app);
    const res = await postForm(
      ctx.app,
      '/v1/user/consents/update',
      { marketing_sms: ['on'] },
      bearer(me.token),
    );
    expectValidationError(res, { marketing_sms: ['The marketing sms field must be true or false.'] });
    const form = registrationForm({ consent_marketing_sms: undefined });
    const signUp = await postForm(ctx.app, '/v1/auth/register', { ...form, consent_marketing_sms: ['on'] });
    expectValidationError(signUp, {
      consent_marketing_sms: ['The consent marketing sms field must be true or false.'],
    });
    expect(await recordsOf(me.id)).toHaveLength(2);
  });

  it('refuses user/consents without a token', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/user/consents' });
    expectError(res, 401, ...UNAUTHENTICATED);
  });

  it.each(OPTIONAL)('accepts consent_%s at sign-up', async (key) => {
    const me = await registerUser(ctx.app, { [`consent_${key}`]: 'true' } as never);
    expect((await recordsOf(me.id)).map((r) => r.key)).toContain(key);
  });
});
