import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';

describe.each(backends)('%s: register → user/get', (backend) => {
  const ctx = useTestApp(backend);

  it('returns the registered user for its token', async () => {
    const registered = await registerUser(ctx.app);
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/user/get',
      headers: bearer(registered.token),
    });
    const data = expectOk<{ user: { id: string; email: string } }>(res);
    expect(data.user.id).toBe(registered.id);
    expect(data.user.email).toBe(registered.email);
  });
});
