import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountEventsOf } from '../helpers/account-events.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm } from '../helpers/http.js';
import { scrape, total } from '../helpers/metrics.js';
import { eventsOf } from '../helpers/security-events.js';
import { type FakeSolapi, newMobile, startFakeSolapi } from '../helpers/solapi.js';

const IN_USE = [
  'ConflictHttpException',
  'This phone number is in use by another account.',
  { status: 'phone_in_use' },
] as const;

describe.each(backends)('%s: the profile’s mobile number', (backend) => {
  let solapi: FakeSolapi;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    solapi = await startFakeSolapi();
    Object.assign(env, solapi.env());
  });
  const ctx = useTestApp(backend, env);
  afterAll(async () => {
    await solapi.close();
  });

  const add = (token: string, fields: Record<string, string>) =>
    postForm(ctx.app, '/v1/user/phone', fields, bearer(token));
  const verify = (token: string, code: string) =>
    postForm(ctx.app, '/v1/user/phone/verify', { code }, bearer(token));
  const texted = async (national: string) => {
    await ctx.infrastructure.sms.idle();
    return solapi.codeFor(national);
  };
  const getUser = async (token: string) =>
    expectOk<{ user: Record<string, unknown> }>(
      await ctx.app.inject({ method: 'GET', url: '/v1/user/get', headers: bearer(token) }),
    ).user;

  it('adds a number as typed, texts it a code through SOLAPI, and verifies it', async () => {
    const me = await registerUser(ctx.app);
    const phone = newMobile();
    expect(await getUser(me.token)).toMatchObject({ phone: null, phone_verified: false });
    const sent = expectOk(await add(me.token, { phone: phone.typed, current_password: me.password }));
    expect(sent).toEqual({ status: 'sent', phone: phone.e164 });
    expect(await getUser(me.token)).toMatchObject({ phone: phone.e164, phone_verified: false });
    const code = await texted(phone.national);
    expect(solapi.messages.at(-1)).toEqual({
      to: phone.national,
      from: solapi.sender,
      type: 'SMS',
      country: '82',
      text: `[accounts] Phone code ${code} (valid 10 min)`,
    });
    expect(solapi.refused).toEqual([]);
    expect(total(await scrape(ctx.app), 'sms_sent_total')).toBeGreaterThanOrEqual(1);

    const verified = expectOk<{ user: Record<string, unknown> }>(await verify(me.token, code));
    expect(verified.user).toMatchObject({ id: me.id, phone: phone.e164, phone_verified: true });
    expect(await getUser(me.token)).toMatchObject({ phone: phone.e164, phone_verified: true });
    // Single use.
    expectValidationError(await verify(me.token, code), {
      code: ['The code is invalid or has expired; ask for a new one.'],
    });
    const events = (await accountEventsOf(ctx.database.handle, me.id)).filter(
      (event) => event.type === 'user.phone_verified',
    );
    expect(events.map((event) => event.data)).toEqual([{ id: me.id, phone: phone.e164 }]);
    const activity = (await eventsOf(ctx.database.handle, me.id)).filter((event) =>
      event.type.startsWith('phone_'),
    );
    const masked = `+82 10-****-${phone.e164.slice(-4)}`;
    expect(activity.map((event) => [event.type, event.details])).toEqual([
      ['phone_added', { phone: masked }],
      ['phone_verified', { phone: masked }],
    ]);
    // The outbox keeps no code once the message went out.
    const rows = await ctx.database.handle.db
      .selectFrom('sms_outbox')
      .select(['status', 'body', 'sent_by', 'attempts'])
      .where('to_number', '=', phone.e164)
      .execute();
    expect(rows).toEqual([
      { status: 'sent', body: null, sent_by: expect.stringMatching(/^M4V/), attempts: 1 },
    ]);
  });

  it('texts in Korean to a Korean reader', async () => {
    const me = await registerUser(ctx.app);
    const phone = newMobile();
    const res = await postForm(
      ctx.app,
      '/v1/user/phone',
      { phone: phone.e164, current_password: me.password },
      { ...bearer(me.token), 'accept-language': 'ko-KR' },
    );
    expectOk(res);
    const code = await texted(phone.national);
    expect(solapi.messages.at(-1)?.text).toBe(`[accounts] 휴대폰 인증번호 ${code} (10분간 유효)`);
  });

  it('refuses what is not a mobile number of an allowed country, naming the field', async () => {
    const me = await registerUser(ctx.app);
    const cases: [string, string][] = [
      ['not a number', 'The phone is not a valid phone number.'],
      ['02-123-4567', 'The phone must be a mobile number.'],
      ['+44 7911 123456', 'The phone must be a mobile number of a country codes can be sent to.'],
    ];
    for (const [phone, message] of cases) {
      expectValidationError(await add(me.token, { phone, current_password: me.password }), {
        phone: [message],
      });
    }
    expectValidationError(await add(me.token, { current_password: me.password }), {
      phone: ['The phone field is required.'],
    });
  });

  it('needs re-authentication to add and to remove a number', async () => {
    const me = await registerUser(ctx.app);
    const phone = newMobile();
    expectValidationError(await add(me.token, { phone: phone.typed, current_password: 'wrong password' }), {
      current_password: ['The current password is incorrect.'],
    });
    const removed = await postForm(ctx.app, '/v1/user/phone/remove', {}, bearer(me.token));
    expect(removed.statusCode).toBe(422);
    expect(Object.keys(removed.json().data)).toEqual(['current_password']);
  });

  it('removes the number', async () => {
    const me = await registerUser(ctx.app);
    const phone = newMobile();
    expectOk(await add(me.token, { phone: phone.typed, current_password: me.password }));
    expectOk(await verify(me.token, await texted(phone.national)));
    const res = await postForm(
      ctx.app,
      '/v1/user/phone/remove',
      { current_password: me.password },
      bearer(me.token),
    );
    expect(expectOk<{ user: Record<string, unknown> }>(res).user).toMatchObject({
      id: me.id,
      phone: null,
      phone_verified: false,
    });
    expect(await getUser(me.token)).toMatchObject({ phone: null, phone_verified: false });
  });

  it('answers 409 phone_in_use for a number verified on another account', async () => {
    const owner = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    const phone = newMobile();
    // Both ask for it before either verifies: the first to verify keeps it.
    expectOk(await add(other.token, { phone: phone.typed, current_password: other.password }));
    const otherCode = await texted(phone.national);
    expectOk(await add(owner.token, { phone: phone.typed, current_password: owner.password }));
    const ownerCode = await texted(phone.national);
    expect(otherCode).not.toBe(ownerCode);
    expectOk(await verify(owner.token, ownerCode));
    // The other's code still works as a proof, but the number is taken.
    expectError(await verify(other.token, otherCode), 409, ...IN_USE);
    expectError(
      await add(other.token, { phone: phone.typed, current_password: other.password }),
      409,
      ...IN_USE,
    );
  });

  it('lets exactly one of two accounts keep a number both verify at once', async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    const phone = newMobile();
    expectOk(await add(first.token, { phone: phone.typed, current_password: first.password }));
    const firstCode = await texted(phone.national);
    expectOk(await add(second.token, { phone: phone.typed, current_password: second.password }));
    const secondCode = await texted(phone.national);
    const answers = await Promise.all([verify(first.token, firstCode), verify(second.token, secondCode)]);
    expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    const loser = answers.find((res) => res.statusCode === 409);
    if (loser) expectError(loser, 409, ...IN_USE);
    const holders = await ctx.database.handle.db
      .selectFrom('users')
      .select('id')
      .where('phone', '=', phone.e164)
      .where('phone_verified', '=', true)
      .execute();
    expect(holders).toHaveLength(1);
  });

  it('answers 422 on code for a wrong code, and for no number waiting', async () => {
    const me = await registerUser(ctx.app);
    const message = { code: ['The code is invalid or has expired; ask for a new one.'] };
    expectValidationError(await verify(me.token, '123456'), message);
    expectValidationError(await verify(me.token, '12345'), { code: ['The code format is invalid.'] });
    const phone = newMobile();
    expectOk(await add(me.token, { phone: phone.typed, current_password: me.password }));
    const code = await texted(phone.national);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    expectValidationError(await verify(me.token, wrong), message);
  });

  it('retries a failed send from the outbox, and sends each message once', async () => {
    const me = await registerUser(ctx.app);
    const phone = newMobile();
    solapi.failWith('http-500');
    expectOk(await add(me.token, { phone: phone.typed, current_password: me.password }));
    await ctx.infrastructure.sms.idle();
    expect(solapi.messages.filter((m) => m.to === phone.national)).toEqual([]);
    solapi.failWith(undefined);
    await sql`UPDATE sms_outbox SET next_attempt_at = now() WHERE to_number = ${phone.e164}`.execute(
      ctx.database.handle.db,
    );
    // Two passes at once (two instances' retriers): the claim lets exactly one send it.
    await Promise.all([ctx.infrastructure.sms.retryDue(), ctx.infrastructure.sms.retryDue()]);
    expect(solapi.messages.filter((m) => m.to === phone.national)).toHaveLength(1);
    expectOk(await verify(me.token, solapi.codeFor(phone.national)));
  });

  it('sends what a crashed instance left claimed once its lease runs out, and never a dead code', async () => {
    const db = ctx.database.handle.db;
    const [left, dead] = [newMobile(), newMobile()];
    const row = (phone: typeof left, expiresInSeconds: number) => ({
      id: crypto.randomUUID(),
      to_number: phone.e164,
      kind: 'phone_code',
      body: `[accounts] Phone code 424242 (valid 10 min)`,
      attempts: 1,
      // The claim of an instance that wrote the row and died before sending: its lease has run out.
      next_attempt_at: new Date(Date.now() - 1000),
      expires_at: new Date(Date.now() + expiresInSeconds * 1000),
    });
    await db
      .insertInto('sms_outbox')
      .values([row(left, 600), row(dead, -1)])
      .execute();
    await ctx.infrastructure.sms.retryDue();
    expect(solapi.messages.filter((m) => m.to === left.national)).toHaveLength(1);
    expect(solapi.messages.filter((m) => m.to === dead.national)).toEqual([]);
    const rows = await db
      .selectFrom('sms_outbox')
      .select(['to_number', 'status', 'body', 'attempts'])
      .where('to_number', 'in', [left.e164, dead.e164])
      .orderBy('status', 'desc')
      .execute();
    expect(rows).toEqual([
      { to_number: left.e164, status: 'sent', body: null, attempts: 2 },
      { to_number: dead.e164, status: 'failed', body: null, attempts: 1 },
    ]);
  });
});
