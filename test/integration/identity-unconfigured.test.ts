import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, postForm } from '../helpers/http.js';

const FIELD = 'identity_verification_id';

describe.each(backends)('%s: identity verification without PortOne', (backend) => {
  const ctx = useTestApp(backend);

  it('answers 503 identity_verification_not_configured, naming the variables to set', async () => {
    const user = await registerUser(ctx.app);
    for (const path of ['start', 'verify']) {
      expectError(
        await postForm(ctx.app, `/v1/user/identity/${path}`, { [FIELD]: 'x' }, bearer(user.token)),
        503,
        'ServiceUnavailableHttpException',
        'Identity verification not configured.',
        {
          status: 'identity_verification_not_configured',
          variables: ['PORTONE_API_SECRET', 'PORTONE_STORE_ID', 'PORTONE_CHANNEL_KEY'],
        },
      );
    }
    expect(
      await ctx.database.handle.db.selectFrom('identity_verification_requests').selectAll().execute(),
    ).toEqual([]);
  });
});
