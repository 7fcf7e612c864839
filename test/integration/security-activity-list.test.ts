import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ActivityCursorCodec } from '../../src/modules/security-events/cursor.js';
import { SecurityEventsRepo } from '../../src/modules/security-events/repo.js';
import { SecurityEventsService } from '../../src/modules/security-events/service.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, expectValidationError, postForm, UNAUTHENTICATED } from '../helpers/http.js';
import { USER_AGENTS } from '../helpers/security-events.js';

interface ActivityEventView {
  id: string;
  type: string;
  at: string;
  ip: string | null;
  user_agent: string | null;
  device: string;
  details: Record<string, unknown>;
}
type ActivityPage = { events: ActivityEventView[]; next_cursor: string | null };

describe.each(backends)('%s: GET user/activity', (backend) => {
  const ctx = useTestApp(backend);

  const activity = (token: string, query = '') =>
    ctx.app.inject({ method: 'GET', url: `/v1/user/activity${query}`, headers: bearer(token) });

  /** A user with a registration and `logins` sign-ins, from the app's own user agent. */
  async function userWithSignIns(logins: number) {
    const user = await registerUser(ctx.app);
    for (let i = 0; i < logins; i++) {
      const res = await postForm(
        ctx.app,
        '/v1/auth/login/email',
        { email: user.email, password: user.password },
        { 'user-agent': USER_AGENTS.app },
      );
      expectOk(res);
    }
    return user;
  }

  it('lists the own events newest first, with the device named, a page at a time', async () => {
    const user = await userWithSignIns(4);
    const other = await userWithSignIns(2);
    const first = expectOk<ActivityPage>(await activity(user.token));
    expect(first.next_cursor).toBeNull();
    expect(first.events.map((event) => event.type)).toEqual([
      'sign_in',
      'sign_in',
      'sign_in',
      'sign_in',
      'account_created',
    ]);
    expect(first.events[0]).toMatchObject({
      ip: '127.0.0.1',
      user_agent: USER_AGENTS.app,
      device: 'Accounts on iPhone',
      details: { method: 'email' },
    });
    // Newest first by (at, id).
    const keys = first.events.map((event) => `${event.at}|${event.id}`);
    expect([...keys].sort().reverse()).toEqual(keys);

    // Walking by two: the same events in the same order, each once, and never another user's.
    const walked: ActivityEventView[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: ActivityPage = expectOk<ActivityPage>(await activity(user.token, query));
      expect(page.events.length).toBeLessThanOrEqual(2);
      walked.push(...page.events);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(walked).toEqual(first.events);
    const othersIds = expectOk<ActivityPage>(await activity(other.token)).events.map((event) => event.id);
    expect(walked.some((event) => othersIds.includes(event.id))).toBe(false);
  });

  it('refuses a limit out of range and a cursor it did not make with 422s', async () => {
    const user = await userWithSignIns(3);
    expectValidationError(await activity(user.token, '?limit=0'), {
      limit: ['The limit must be at least 1.'],
    });
    expectValidationError(await activity(user.token, '?limit=101'), {
      limit: ['The limit may not be greater than 100.'],
    });
    const page = expectOk<ActivityPage>(await activity(user.token, '?limit=1'));
    const cursor = page.next_cursor ?? '';
    const [payload = '', signature = ''] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ t: 0, i: page.events[0]?.id })).toString('base64url')}.${signature}`;
    for (const bad of ['nonsense', `${payload}.AAAAAAAAAAAAAAAAAAAAAA`, forged, 'x'.repeat(5000)]) {
      expectValidationError(await activity(user.token, `?cursor=${encodeURIComponent(bad)}`), {
        cursor: ['The selected cursor is invalid.'],
      });
    }
    // Another user's cursor only says where to start: it shows nothing of theirs.
    const other = await userWithSignIns(1);
    const theirs = expectOk<ActivityPage>(
      await activity(other.token, `?cursor=${encodeURIComponent(cursor)}`),
    );
    expect(theirs.events.every((event) => !page.events.some((mine) => mine.id === event.id))).toBe(true);
  });

  it('is a 401 without a valid token', async () => {
    expectError(await ctx.app.inject({ method: 'GET', url: '/v1/user/activity' }), 401, ...UNAUTHENTICATED);
    expectError(await activity('not-a-token'), 401, ...UNAUTHENTICATED);
  });

  it('prunes events older than the retention, in batches, and keeps the rest', async () => {
    const user = await userWithSignIns(2);
    const db = ctx.database.handle.db;
    // Move the registration and one sign-in back past a year.
    await sql`
      UPDATE security_events SET at = now() - interval '400 days'
      WHERE id IN (SELECT id FROM security_events WHERE user_id = ${user.id}::uuid ORDER BY at, id LIMIT 2)`.execute(
      db,
    );
    const repo = new SecurityEventsRepo(db);
    const events = new SecurityEventsService(repo, new ActivityCursorCodec(() => repo.cursorKey()));
    expect(await events.prune(365)).toBeGreaterThanOrEqual(2);
    const left = expectOk<ActivityPage>(await activity(user.token)).events;
    expect(left.map((event) => event.type)).toEqual(['sign_in']);
    expect(await events.prune(365)).toBe(0);
  });
});
