import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, unique } from '../helpers/factories.js';
import { postForm } from '../helpers/http.js';

/**
 * One push token registered by many sessions at once (a shared phone, a reinstalled app): on PostgreSQL each
 * registration cleared the token from the others' rows and then waited for their inserts, and 15–20% ended
 * in a deadlock and a 500. Now registrations of one token take turns.
 */
describe.each(backends)('%s: one push token from eight sessions at once', (backend) => {
  const ctx = useTestApp(backend);

  it('answers every registration, and exactly one device holds the token after each round', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => registerUser(ctx.app)));
    for (let round = 0; round < 5; round++) {
      const pushToken = `fcm-${unique()}`;
      const results = await Promise.all(
        users.map((user, index) =>
          postForm(
            ctx.app,
            '/v1/user/device/update',
            { device_id: `phone-${index}`, platform: 'android', push_token: pushToken },
            bearer(user.token),
          ),
        ),
      );
      expect(results.map((res) => res.statusCode)).toEqual(users.map(() => 200));
      const { rows } = await sql<{ count: number }>`
        SELECT count(*)::int AS count FROM devices WHERE push_token = ${pushToken}`.execute(
        ctx.database.handle.db,
      );
      expect(rows[0]?.count).toBe(1);
    }
  }, 120_000);
});
