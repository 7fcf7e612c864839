import { describe, expect, it } from 'vitest';
import { ForbiddenError, ValidationError } from '../../src/errors.js';
import { useTestApp } from '../helpers/app.js';
import { buildTestConsoleUsers, STAFF_ADDRESS, staff } from '../helpers/console-users.js';
import { backends } from '../helpers/database.js';
import { registerUser, unique } from '../helpers/factories.js';

const masked = (email: string) => `${email[0]}***@${email.split('@')[1]}`;

describe.each(backends)('%s: the console searches users', (backend) => {
  const ctx = useTestApp(backend);

  /** Three users whose email, username and slug share a fresh prefix, in the order a prefix search gives. */
  async function family() {
    const tag = `fam${unique()}`;
    const users = [];
    for (const n of [1, 2, 3]) {
      users.push(
        await registerUser(ctx.app, {
          email: `${tag}-${n}@example.com`,
          username: `${tag}${n}`,
          slug: `${tag}-${n}`,
          birth_date: `1990-04-0${n}`,
        }),
      );
    }
    return { tag, users };
  }

  it('pages a prefix of the email by keyset, masked, each page one record', async () => {
    const { recorder, userSearch } = buildTestConsoleUsers(ctx);
    const { tag, users } = await family();
    const actor = staff('viewer');
    const first = await userSearch.search(actor, {
      field: 'email',
      mode: 'prefix',
      query: tag.toUpperCase(),
      limit: 2,
    });
    expect(first.users.map((user) => user.id)).toEqual([users[0]?.id, users[1]?.id]);
    expect(first.users[0]).toEqual({
      id: users[0]?.id,
      email: masked(users[0]?.email ?? ''),
      username: users[0]?.username,
      slug: users[0]?.slug,
      email_verified: false,
      phone: null,
      disabled_at: null,
      deletion_due_at: null,
      birth_year: '1990',
      created_at: expect.any(String),
    });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await userSearch.search(actor, {
      field: 'email',
      mode: 'prefix',
      query: tag,
      limit: 2,
      cursor: first.next_cursor as string,
    });
    expect(second.users.map((user) => user.id)).toEqual([users[2]?.id]);
    expect(second.next_cursor).toBeNull();
    const record = (query: string, rows: number) => ({
      actor: { kind: 'staff', id: actor.id },
      clientAddress: STAFF_ADDRESS,
      subjectId: null,
      action: 'users.search',
      outcome: 'ok',
      detail: { field: 'email', mode: 'prefix', query, rows },
    });
    expect(recorder.take()).toEqual([record(tag.toUpperCase(), 2), record(tag, 1)]);
  });

  it('finds by username and slug prefix, and exactly by email, username, slug and id', async () => {
    const { userSearch } = buildTestConsoleUsers(ctx);
    const { tag, users } = await family();
    const [one] = users;
    if (!one) throw new Error('no user');
    const ids = async (field: string, mode: string, query: string) =>
      (await userSearch.search(staff('viewer'), { field, mode, query })).users.map((user) => user.id);
    expect(await ids('username', 'prefix', tag)).toEqual(users.map((user) => user.id));
    expect(await ids('slug', 'prefix', `${tag}-`)).toEqual(users.map((user) => user.id));
    expect(await ids('email', 'exact', one.email.toUpperCase())).toEqual([one.id]);
    expect(await ids('username', 'exact', one.username)).toEqual([one.id]);
    expect(await ids('slug', 'exact', one.slug)).toEqual([one.id]);
    expect(await ids('id', 'exact', one.id.toUpperCase())).toEqual([one.id]);
    expect(await ids('id', 'prefix', one.id.slice(0, 36))).toEqual([one.id]);
    // Exact is the default; a prefix is no exact match, and `%` or `_` stand for themselves.
    expect(await ids('email', undefined as unknown as string, tag)).toEqual([]);
    expect(await ids('username', 'prefix', `${tag.slice(0, 3)}%`)).toEqual([]);
    expect(await ids('id', 'exact', 'not-a-uuid')).toEqual([]);
    expect(await ids('id', 'prefix', 'zz')).toEqual([]);
  });

  it('finds by phone as typed in Korea, exactly and by prefix, keyset pages, masked', async () => {
    const { recorder, userSearch } = buildTestConsoleUsers(ctx);
    const block = String(1000 + Math.floor(Math.random() * 9000));
    const number = (last: string) => `+8210${block}${last}`;
    const users = [];
    // An unverified number may be on two accounts: both are found, in id order.
    for (const [phone, verified] of [
      [number('0001'), true],
      [number('0001'), false],
      [number('0002'), false],
    ] as const) {
      const user = await registerUser(ctx.app);
      await ctx.database.handle.db
        .updateTable('users')
        .set({ phone, phone_verified: verified })
        .where('id', '=', user.id)
        .execute();
      users.push(user);
    }
    const ids = users.map((user) => user.id);
    const actor = staff('viewer');
    const page = (mode: string, query: string, limit = 20, cursor?: string) =>
      userSearch.search(actor, { field: 'phone', mode, query, limit, cursor });
    const exact = await page('exact', `010-${block}-0001`);
    expect(exact.users.map((user) => [user.id, user.phone])).toEqual([
      [ids[0], '010-****-0001'],
      [ids[1], '010-****-0001'],
    ]);
    expect(exact.next_cursor).toBeNull();
    expect((await page('exact', `+82 10 ${block} 0002`)).users.map((user) => user.id)).toEqual([ids[2]]);
    const first = await page('prefix', `010-${block.slice(0, 2)}-${block.slice(2)}`, 2);
    expect(first.users.map((user) => user.id)).toEqual([ids[0], ids[1]]);
    const second = await page('prefix', `010${block}`, 2, first.next_cursor as string);
    expect(second).toEqual({ users: [expect.objectContaining({ id: ids[2] })], next_cursor: null });
    // A prefix of a number is no exact match; letters or a lone `+` are no number at all.
    for (const [mode, query] of [
      ['exact', `010-${block}`],
      ['prefix', `010-${block}x`],
      ['prefix', '+'],
    ]) {
      expect((await page(mode as string, query as string)).users).toEqual([]);
    }
    expect(recorder.take().map((entry) => entry.detail?.rows)).toEqual([2, 1, 2, 1, 0, 0, 0]);

    const csv = await userSearch.export(staff('support'), {
      field: 'phone',
      mode: 'prefix',
      query: `010-${block}`,
      reason: 'Ticket 4712: which account has this number',
    });
    expect(
      csv.csv
        .trimEnd()
        .split('\r\n')
        .map((line) => line.split(',').at(-1)),
    ).toEqual(['"phone"', '"010-****-0001"', '"010-****-0001"', '"010-****-0002"']);
    const full = await userSearch.export(staff('admin'), {
      field: 'phone',
      mode: 'exact',
      query: number('0002'),
      reason: 'Ticket 4712: which account has this number',
    });
    expect(full.csv.trimEnd().split('\r\n')[1]?.split(',').at(-1)).toBe(`"'${number('0002')}"`);
  });

  it('refuses a bad field, mode, limit or cursor with the 422 naming it, recording nothing', async () => {
    const { recorder, userSearch } = buildTestConsoleUsers(ctx);
    const actor = staff('support');
    await expect(userSearch.search(actor, { field: 'password', query: 'x' })).rejects.toMatchObject({
      failures: { field: [{ rule: 'in' }] },
    });
    await expect(
      userSearch.search(actor, { field: 'email', mode: 'fuzzy', query: 'x', limit: 0 }),
    ).rejects.toMatchObject({
      failures: { mode: [{ rule: 'in' }], limit: [{ rule: 'min.numeric', params: { min: 1 } }] },
    });
    await expect(
      userSearch.search(actor, { field: 'email', query: 'x', cursor: 'forged.cursor' }),
    ).rejects.toEqual(new ValidationError({ cursor: [{ rule: 'in' }] }));
    // A cursor of another field's search is no cursor of this one.
    const { tag } = await family();
    const page = await userSearch.search(actor, { field: 'email', mode: 'prefix', query: tag, limit: 1 });
    recorder.take();
    await expect(
      userSearch.search(actor, {
        field: 'username',
        mode: 'prefix',
        query: tag,
        cursor: page.next_cursor as string,
      }),
    ).rejects.toEqual(new ValidationError({ cursor: [{ rule: 'in' }] }));
    expect(recorder.take()).toEqual([]);
  });

  it('exports a search as CSV with its row count: masked for support, in full for admin', async () => {
    const { recorder, userSearch } = buildTestConsoleUsers(ctx);
    const { tag, users } = await family();
    const request = {
      field: 'username',
      mode: 'prefix',
      query: tag,
      reason: 'Ticket 4711: duplicate accounts',
    };
    const support = await userSearch.export(staff('support'), request);
    expect(support.row_count).toBe(3);
    expect(support.masked).toBe(true);
    const lines = support.csv.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '"id","email","username","slug","email_verified","disabled_at","deletion_due_at","birth_date","created_at","phone"',
    );
    expect(lines.slice(1).map((line) => line.split(',').slice(0, 3))).toEqual(
      users.map((user) => [`"${user.id}"`, `"${masked(user.email)}"`, `"${user.username}"`]),
    );
    expect(lines[1]).toContain('"1990"');
    const admin = await userSearch.export(staff('admin'), request);
    expect(admin.masked).toBe(false);
    expect(admin.csv).toContain(`"${users[0]?.email}"`);
    expect(admin.csv).toContain('"1990-04-01"');
    const record = (role: 'support' | 'admin', isMasked: boolean) => ({
      actor: { kind: 'staff', id: staff(role).id },
      clientAddress: STAFF_ADDRESS,
      subjectId: null,
      action: 'users.export',
      reason: 'Ticket 4711: duplicate accounts',
      outcome: 'ok',
      detail: { field: 'username', mode: 'prefix', query: tag, rows: 3, masked: isMasked },
    });
    expect(recorder.take()).toEqual([record('support', true), record('admin', false)]);
  });

  it('refuses an export to a viewer (recorded) and one without a reason (422 on reason)', async () => {
    const { recorder, userSearch } = buildTestConsoleUsers(ctx);
    const request = { field: 'email', mode: 'prefix', query: 'a', reason: 'curious' };
    await expect(userSearch.export(staff('viewer'), request)).rejects.toBeInstanceOf(ForbiddenError);
    expect(recorder.take()).toEqual([
      {
        actor: { kind: 'staff', id: staff('viewer').id },
        clientAddress: STAFF_ADDRESS,
        subjectId: null,
        action: 'users.export',
        reason: 'curious',
        outcome: 'refused',
        detail: { permission: 'users.export' },
      },
    ]);
    for (const reason of [undefined, '', '   ']) {
      await expect(userSearch.export(staff('support'), { ...request, reason })).rejects.toEqual(
        new ValidationError({ reason: [{ rule: 'required' }] }),
      );
    }
    expect(recorder.take()).toEqual([]);
  });
});
